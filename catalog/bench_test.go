package catalog

import "testing"

// BenchmarkSearchNATS is one search over the nats tool set (230 tools),
// cycling through the tuning tasks' queries.
func BenchmarkSearchNATS(b *testing.B) {
	x := New(natsEntries(b))
	tasks := loadJSON[[]task](b, tuneTasks)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Search(tasks[i%len(tasks)].Query, 5)
		i++
	}
}

// BenchmarkNewNATS builds the index of the nats tool set.
func BenchmarkNewNATS(b *testing.B) {
	entries := natsEntries(b)
	b.ReportAllocs()
	for b.Loop() {
		New(entries)
	}
}
