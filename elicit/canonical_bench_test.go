package elicit

import (
	"encoding/json"
	"testing"
)

// BenchmarkHashArguments is what binding an approval to a typical call's
// arguments costs.
func BenchmarkHashArguments(b *testing.B) {
	args := json.RawMessage(`{"stream":"ORDERS","subjects":["orders.>","returns.*"],"replicas":3,"max_age":"24h","force":true,"config":{"storage":"file","retention":"limits","description":"orders \u00e9 returns"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hashArguments(args); err != nil {
			b.Fatal(err)
		}
	}
}
