package introspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var app fisk.ApplicationModel
	if err := dec.Decode(&app); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON document")
	}
	if app.Name == "" {
		return nil, errors.New("the JSON document names no application")
	}
	return &app, nil
}
