package catalog_test

import (
	"fmt"

	"github.com/fisk-mcp/fisk-mcp/catalog"
)

func ExampleIndex_Search() {
	x := catalog.New([]catalog.Entry{
		{Name: "stream_ls", Title: "stream ls", Description: "List all known streams"},
		{Name: "stream_rm", Title: "stream rm", Description: "Removes a stream"},
		{Name: "stream_purge", Title: "stream purge", Description: "Bulk removes messages from a stream"},
		{Name: "kv_add", Title: "kv add", Description: "Adds a new KV Store Bucket"},
	})
	for _, q := range []string{"delete the ORDERS stream", "show all the streams", "make a key-value bucket"} {
		hits := x.Search(q, 2)
		fmt.Printf("%s: %s\n", q, hits[0].Name)
	}
	// Output:
	// delete the ORDERS stream: stream_rm
	// show all the streams: stream_ls
	// make a key-value bucket: kv_add
}
