package clients

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// Whatever a client's file holds, merging either refuses it or yields a
// file that means the old one plus exactly the entry; it never panics.
func FuzzMerge(f *testing.F) {
	for _, s := range []string{desktopFile, vscodeFile, geminiFile, codexFile, "{}", "", "{\"servers\": {\"nats\": 1}}", "[mcp_servers.nats]\ncommand = 1\n", "{\"a\": [1, {\"b\": \"/*\"}], // x\n}"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, force bool) {
		for _, client := range []string{"vscode", "claude-desktop", "codex"} {
			fm := formats[client]
			out, unchanged, err := merge(fm, data, fiskLaunch, force)
			if err != nil {
				var me *MalformedError
				if !errors.As(err, &me) && !errors.Is(err, ErrExists) && !errors.Is(err, ErrCannotMerge) {
					t.Fatalf("%s: unexpected error kind %v", client, err)
				}
				continue
			}
			if unchanged && string(out) != string(data) {
				t.Fatalf("%s: unchanged, yet the text differs", client)
			}
			var doc map[string]any
			if fm.toml {
				err = toml.Unmarshal(out, &doc)
			} else {
				plain := out
				if fm.comments {
					plain, _ = stripJSONC(out)
				}
				err = json.Unmarshal(plain, &doc)
			}
			if err != nil {
				t.Fatalf("%s: the merged file does not parse: %v\n%q", client, err, out)
			}
			entry, _ := doc[fm.servers].(map[string]any)["nats"].(map[string]any)
			if entry == nil || entry["command"] != fiskLaunch.Command || !reflect.DeepEqual(entry["args"], []any{"serve", "--name=nats", "/usr/bin/nats"}) {
				t.Fatalf("%s: entry missing from %q", client, out)
			}
		}
	})
}
