package plan

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/configfile"
)

// maxRequestsFile bounds a --search-requests file. A request is a sentence
// someone says; a file is many of them, for one application.
const maxRequestsFile = 4 << 20

//go:embed searchrequests.schema.json
var searchRequestsSchemaJSON []byte

var searchRequestsSchema = sync.OnceValues(func() (*configfile.Schema, error) {
	return configfile.NewSchema(searchRequestsSchemaJSON,
		"a file of requests is application: NAME, commands: {COMMAND PATH: [REQUEST, ...]} and, if you like, written_for: VERSION")
})

// readSearchRequests adds to into the requests of the file at path, which
// setting names in messages (--search-requests FILE, or the configuration
// file's key): YAML or JSON,
//
//	application: nats
//	commands:
//	  stream ls: ["what streams do we have", "show me every queue"]
//
// read as a configuration file is (configfile), and nothing added unless
// the whole file is right.
func readSearchRequests(setting, path string, into catalog.Requests) error {
	raw, err := configfile.ReadFile(setting, path, maxRequestsFile)
	if err != nil {
		return err
	}
	sch, err := searchRequestsSchema()
	if err != nil {
		return fmt.Errorf("compiling the built-in schema of requests: %w", err)
	}
	js, err := sch.Parse(raw, oneRequestIsAList)
	var file struct {
		Application string
		Commands    map[string][]string
	}
	if err == nil {
		err = json.Unmarshal(js, &file)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", setting, path, err)
	}
	app := strings.TrimSpace(file.Application)
	for _, path := range slices.Sorted(maps.Keys(file.Commands)) {
		reqs := file.Commands[path]
		for i := range reqs {
			reqs[i] = strings.TrimSpace(reqs[i])
		}
		into.Add(app, strings.Join(strings.Fields(path), " "), reqs...)
	}
	return nil
}

// oneRequestIsAList lets a command with one request give it without a
// list; it also refuses an empty file, which the schema would describe as
// two missing keys.
func oneRequestIsAList(doc any) error {
	m, isMap := doc.(map[string]any)
	if isMap && len(m) == 0 {
		return errors.New("empty; give application: NAME and commands: {COMMAND PATH: [REQUEST, ...]}")
	}
	cmds, _ := m["commands"].(map[string]any)
	for path, v := range cmds {
		if s, ok := v.(string); ok {
			cmds[path] = []any{s}
		}
	}
	return nil
}
