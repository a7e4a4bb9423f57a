package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// decodeYAML decodes the one YAML document of a configuration file and
// returns its node, for the lines of mistakes; an empty file is nil. Empty
// documents are ignored, but a second document with content is refused,
// not skipped: settings after a stray "---" (a confirm_tag, say) would
// otherwise silently not apply.
func decodeYAML(raw []byte) (any, *yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var doc any
	var root *yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return doc, root, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("not valid YAML or JSON: %w", err)
		}
		if emptyDocument(&n) {
			continue
		}
		if root != nil {
			return nil, nil, fmt.Errorf("line %d: a second YAML document begins here; fisk-mcp reads one document, so its settings would not apply: move them into the first and remove the ---", n.Line)
		}
		root = &n
		if err := stringKeys(&n); err != nil {
			return nil, nil, err
		}
		if err := n.Decode(&doc); err != nil {
			return nil, nil, fmt.Errorf("not valid YAML or JSON: %w", err)
		}
	}
}

// lineOf returns the line of the value at loc, a JSON pointer into the
// document n holds, or of the key when key is set; where loc leaves the
// document (a key the caller's normalize renamed), the line of the
// nearest node found.
func lineOf(n *yaml.Node, loc []string, key bool) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for i, tok := range loc {
		next := -1
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == tok {
					next = j + 1
					if key && i == len(loc)-1 {
						next = j
					}
				}
			}
		case yaml.SequenceNode:
			if k, err := strconv.Atoi(tok); err == nil && k < len(n.Content) {
				next = k
			}
		}
		if next < 0 {
			break
		}
		n = n.Content[next]
	}
	return n.Line
}

func emptyDocument(n *yaml.Node) bool {
	if n.Kind != yaml.DocumentNode {
		return false
	}
	return len(n.Content) == 0 || n.Content[0].Kind == yaml.ScalarNode && n.Content[0].ShortTag() == "!!null"
}

// stringKeys checks that every mapping key under n is a string: settings
// are named, and YAML reads an unquoted 1, true or null as something else.
func stringKeys(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind == yaml.ScalarNode && (key.ShortTag() == "!!str" || key.ShortTag() == "!!merge") {
				continue
			}
			return fmt.Errorf("line %d: key %s is %s, not a name; keys are setting names such as timeout (quote the key if it is meant as one)", key.Line, keyText(key), yamlKind(key))
		}
	}
	for _, c := range n.Content {
		if err := stringKeys(c); err != nil {
			return err
		}
	}
	return nil
}

func keyText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return "at column " + fmt.Sprint(n.Column)
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	}
	return "of type " + n.ShortTag()
}
