package catalog

import "testing"

// BenchmarkSearchNATS is one search over the nats tool set (230 tools),
// cycling through the held-out tasks' queries: requests the index was not
// given (see Asked), as a user's are. Only their time is taken.
func BenchmarkSearchNATS(b *testing.B) {
	x := New(natsEntries(b))
	tasks := natsHeldout(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Search(tasks[i%len(tasks)].Query, 5)
		i++
	}
}

// BenchmarkNewNATS builds the index of the nats tool set, as served (with
// the requests known for its commands) and over the tools' text alone.
func BenchmarkNewNATS(b *testing.B) {
	for _, c := range []struct {
		name    string
		entries []Entry
	}{{"served", natsEntries(b)}, {"text-only", natsSnapshot(b)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				New(c.entries)
			}
		})
	}
}

// BenchmarkSearchNATSTextOnly is BenchmarkSearchNATS over the tools' text
// alone, the baseline of the requests' cost per search.
func BenchmarkSearchNATSTextOnly(b *testing.B) {
	x := New(natsSnapshot(b))
	tasks := natsHeldout(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Search(tasks[i%len(tasks)].Query, 5)
		i++
	}
}
