package introspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/choria-io/fisk"
)

// Decode parses an introspection document. Numbers inside the precomputed
// schemas stay json.Number, so integer bounds keep their exact value. The
// document must be one JSON object naming an application, with nothing
// after it; otherwise the error matches ErrNotJSON.
func Decode(doc []byte) (*fisk.ApplicationModel, error) {
	app, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	return app, nil
}

func decode(doc []byte) (*fisk.ApplicationModel, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, errors.New("it printed nothing")
	}
	// The top-level commands are kept raw here and decoded below, each on
	// its own goroutine: a large CLI's document (nats: 600 KB) is decoded
	// on every start, before the first tools/list can be answered. The
	// outer Commands field hides the embedded one of the same name.
	var top struct {
		*fisk.ApplicationModel
		Commands []json.RawMessage `json:"commands"`
	}
	top.ApplicationModel = &fisk.ApplicationModel{}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON document")
	}
	app := top.ApplicationModel
	if app.Name == "" {
		return nil, errors.New("the JSON document names no application")
	}
	if top.Commands != nil {
		cmds, err := decodeCommands(top.Commands)
		if err != nil {
			return nil, err
		}
		app.CmdGroupModel = &fisk.CmdGroupModel{Commands: cmds}
	}
	return app, nil
}

// decodeCommands decodes each of raws, concurrently; the first error in
// document order is returned, so the message does not depend on timing.
func decodeCommands(raws []json.RawMessage) ([]*fisk.CmdModel, error) {
	cmds := make([]*fisk.CmdModel, len(raws))
	errs := make([]error, len(raws))
	var wg sync.WaitGroup
	for i, raw := range raws {
		wg.Go(func() {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			errs[i] = dec.Decode(&cmds[i])
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("commands[%d]: %w", i, err)
		}
	}
	return cmds, nil
}
