package catalog

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sync"
)

// The requests people have made of known applications, by command: what
// someone asked for when that command was the answer ("who's using the
// most bandwidth" for server report connections). Each file is one
// application's, written from the labelled requests a ranking is tuned on
// and never from those it is measured on (see testdata/README.md).
//
//go:embed asked/*.json
var askedFiles embed.FS

// askedPack is one file of asked: the application by the name it gives
// itself in its introspection document, the version its commands were
// taken from, and the requests by command path (the tool's title).
type askedPack struct {
	Application string              `json:"application"`
	WrittenFor  string              `json:"written_for"`
	Commands    map[string][]string `json:"commands"`
}

// askedPacks are the embedded packs by application. The files are part of
// the build and checked by the tests, so one that does not decode is a
// broken build and panics on first use.
var askedPacks = sync.OnceValue(func() map[string]askedPack {
	files, err := askedFiles.ReadDir("asked")
	if err != nil {
		panic(fmt.Sprintf("catalog: reading the embedded requests: %v", err))
	}
	out := map[string]askedPack{}
	for _, f := range files {
		raw, err := askedFiles.ReadFile(path.Join("asked", f.Name()))
		if err != nil {
			panic(fmt.Sprintf("catalog: reading asked/%s: %v", f.Name(), err))
		}
		var p askedPack
		if err := json.Unmarshal(raw, &p); err != nil {
			panic(fmt.Sprintf("catalog: decoding asked/%s: %v", f.Name(), err))
		}
		if p.Application == "" {
			panic(fmt.Sprintf("catalog: asked/%s names no application", f.Name()))
		}
		if _, dup := out[p.Application]; dup {
			panic(fmt.Sprintf("catalog: two files of requests for application %q", p.Application))
		}
		out[p.Application] = p
	}
	return out
})

// Asked returns the requests people have made when the command title of
// the application called application was their answer, as Entry.Asked
// takes them; nil for an application or a command nothing is known of. A
// fresh copy.
func Asked(application, title string) []string {
	return slices.Clone(askedPacks()[application].Commands[title])
}
