package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/fisk-mcp/fisk-mcp/catalog"
	"github.com/fisk-mcp/fisk-mcp/internal/visible"
)

// Bounds of a --search-requests file. A request is a sentence someone
// says; a file is many of them, for one application.
const (
	maxRequestsFile = 4 << 20
	maxRequest      = 1000 // characters
	maxPath         = 200  // characters: a command path is a few words
)

// readSearchRequests adds to into the requests of the file at path, which
// setting names in messages (--search-requests FILE, or the configuration
// file's key): YAML or JSON,
//
//	application: nats
//	commands:
//	  stream ls: ["what streams do we have", "show me every queue"]
//
// every problem of the file reported at once, and nothing added unless
// the whole file is right.
func readSearchRequests(setting, path string, into catalog.Requests) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s %s: %s", setting, path, fmt.Sprintf(format, args...))
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w; pass a readable YAML or JSON file of requests", setting, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxRequestsFile+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w; pass a readable YAML or JSON file of requests", setting, err)
	}
	if len(raw) > maxRequestsFile {
		return fail("larger than 4 MiB; a file of requests holds sentences people say, check that it is the right file")
	}
	// One document, as in a configuration file: empty ones (a stray ---)
	// are ignored, a second with content is refused, not skipped.
	var root *yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail("not valid YAML or JSON: %v", err)
		}
		if len(n.Content) == 0 || n.Content[0].Kind == yaml.ScalarNode && n.Content[0].ShortTag() == "!!null" {
			continue
		}
		if root != nil {
			return fail("line %d: a second YAML document begins here; put every command in the first", n.Line)
		}
		root = &n
	}
	if root == nil {
		return fail("empty; give application: NAME and commands: {COMMAND PATH: [REQUEST, ...]}")
	}
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return fail("line %d: give a mapping with application: NAME and commands: {COMMAND PATH: [REQUEST, ...]}", doc.Line)
	}
	var problems []string
	bad := func(n *yaml.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", n.Line)+fmt.Sprintf(format, args...))
	}
	var application string
	var commands *yaml.Node
	var appSeen, commandsSeen bool
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, value := doc.Content[i], doc.Content[i+1]
		switch key.Value {
		case "application":
			appSeen = true
			if value.Kind != yaml.ScalarNode || strings.TrimSpace(value.Value) == "" || utf8.RuneCountInString(value.Value) > maxPath {
				bad(value, "application: give the name the application gives itself (its --fisk-introspect document's name, such as nats)")
				continue
			}
			application = strings.TrimSpace(value.Value)
		case "written_for":
			if value.Kind != yaml.ScalarNode {
				bad(value, "written_for: give a version, such as natscli v0.5.0, or leave it out")
			}
		case "commands":
			commandsSeen = true
			if value.Kind != yaml.MappingNode {
				bad(value, "commands: give a mapping of command paths to lists of requests")
				continue
			}
			commands = value
		default:
			bad(key, "%s is not a key of a file of requests; the keys are application, commands and written_for", printable(key.Value))
		}
	}
	if !appSeen {
		problems = append(problems, "application is missing: give the name the application gives itself, such as nats")
	}
	if !commandsSeen {
		problems = append(problems, "commands is missing: give a mapping of command paths (stream ls) to lists of requests")
	}
	type request struct{ title, text string }
	var found []request
	if commands != nil {
		for i := 0; i+1 < len(commands.Content); i += 2 {
			key, value := commands.Content[i], commands.Content[i+1]
			title := strings.Join(strings.Fields(key.Value), " ")
			if key.Kind != yaml.ScalarNode || title == "" {
				bad(key, "a command path is missing: give the command's words without the application's name, such as stream ls")
				continue
			}
			if utf8.RuneCountInString(title) > maxPath {
				bad(key, "%s: a command path is longer than %d characters; give the command's words, such as stream ls", printable(title), maxPath)
				continue
			}
			items := []*yaml.Node{value}
			if value.Kind == yaml.SequenceNode {
				items = value.Content
			}
			if len(items) == 0 {
				bad(value, "%s: give at least one request", printable(title))
			}
			for _, item := range items {
				text := strings.TrimSpace(item.Value)
				switch {
				case item.Kind != yaml.ScalarNode:
					bad(item, "%s: a request is a sentence, not a list or a mapping", printable(title))
				case text == "":
					bad(item, "%s: a request is empty", printable(title))
				case utf8.RuneCountInString(text) > maxRequest:
					bad(item, "%s: a request is longer than %d characters; a request is what someone says", printable(title), maxRequest)
				default:
					found = append(found, request{title, text})
				}
			}
		}
	}
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		return fail("%s", strings.Join(problems, "; "))
	}
	byTitle := map[string][]string{}
	var titles []string
	for _, r := range found {
		if _, ok := byTitle[r.title]; !ok {
			titles = append(titles, r.title)
		}
		byTitle[r.title] = append(byTitle[r.title], r.text)
	}
	for _, title := range titles {
		into.Add(application, title, byTitle[title]...)
	}
	return nil
}

// printable quotes s for a message, cut to 80 characters, its control
// and formatting characters escaped.
func printable(s string) string { return strconv.Quote(visible.Cut(s, 80)) }
