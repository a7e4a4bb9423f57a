package clients

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// This file edits Codex's config.toml: the server's table is appended, or
// with force its sections are replaced where they stand; every other byte
// of the file, comments included, is kept.

// tomlSection is the text of one table of a TOML document, from the start
// of its header line to the end of its last key's line.
type tomlSection struct {
	key        []string
	start, end int
}

// tomlSections lists the tables of a valid TOML document.
func tomlSections(data []byte) ([]tomlSection, error) {
	var p unstable.Parser
	p.Reset(data)
	var out []tomlSection
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var key []string
			first := -1
			for it := e.Key(); it.Next(); {
				n := it.Node()
				if first < 0 {
					first = int(n.Raw.Offset)
				}
				key = append(key, string(n.Data))
			}
			start := bytes.LastIndexByte(data[:first], '\n') + 1
			out = append(out, tomlSection{key: key, start: start, end: lineEnd(data, first)})
		case unstable.KeyValue:
			if len(out) > 0 {
				out[len(out)-1].end = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
			}
		}
	}
	return out, p.Error()
}

// lineEnd returns the offset after the newline ending the line holding i.
func lineEnd(data []byte, i int) int {
	if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(data)
}

// mergeTOML returns data with table, the rendering of one server named
// name, set in its mcp_servers; unchanged when the same entry is there.
func mergeTOML(data []byte, name, table string, force bool) (out []byte, unchanged bool, err error) {
	old := map[string]any{}
	if err := toml.Unmarshal(data, &old); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, false, &MalformedError{Err: fmt.Errorf("line %d, column %d: %s", row, col, de.Error())}
		}
		return nil, false, &MalformedError{Err: err}
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte(table), &doc); err != nil {
		return nil, false, err
	}
	want := doc["mcp_servers"].(map[string]any)[name]
	servers, ok := old["mcp_servers"].(map[string]any)
	if _, present := old["mcp_servers"]; present && !ok {
		return nil, false, fmt.Errorf("%w: mcp_servers is not a table; fix it by hand", ErrCannotMerge)
	}
	have, found := servers[name]
	switch {
	case found && reflect.DeepEqual(have, want):
		return data, true, nil
	case found && !force:
		return nil, false, ErrExists
	case found:
		out, err = replaceTOMLTable(data, name, table)
		if err != nil {
			return nil, false, err
		}
	default:
		out = slices.Clone(data)
		if len(out) > 0 {
			if out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
			out = append(out, '\n')
		}
		out = append(out, table...)
	}
	out = matchNewlines(data, out)
	// The text edit must mean exactly the one change: a file that spells
	// mcp_servers in a way the edit cannot extend (inline, dotted keys) is
	// refused rather than broken.
	expect := map[string]any{}
	if err := toml.Unmarshal(data, &expect); err != nil {
		return nil, false, err
	}
	if expect["mcp_servers"] == nil {
		expect["mcp_servers"] = map[string]any{}
	}
	expect["mcp_servers"].(map[string]any)[name] = want
	got := map[string]any{}
	if err := toml.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, expect) {
		return nil, false, fmt.Errorf("%w: mcp_servers.%s is written in a form fisk-mcp cannot edit in place (an inline table or dotted keys); add the table fisk-mcp config codex prints by hand", ErrCannotMerge, name)
	}
	return out, false, nil
}

// replaceTOMLTable replaces the sections of [mcp_servers.NAME] and its
// subtables with table, at the place of the first.
func replaceTOMLTable(data []byte, name, table string) ([]byte, error) {
	sections, err := tomlSections(data)
	if err != nil {
		return nil, &MalformedError{Err: err}
	}
	prefix := []string{"mcp_servers", name}
	var own []tomlSection
	for _, s := range sections {
		if len(s.key) >= 2 && slices.Equal(s.key[:2], prefix) {
			own = append(own, s)
		}
	}
	if len(own) == 0 {
		return nil, fmt.Errorf("%w: mcp_servers.%s is not written as a [mcp_servers.%s] table; replace it by hand", ErrCannotMerge, name, name)
	}
	out := slices.Clone(data[:own[0].start])
	out = append(out, table...)
	for i, s := range own {
		next := len(data)
		if i+1 < len(own) {
			next = own[i+1].start
		}
		out = append(out, data[s.end:next]...)
	}
	return out, nil
}
