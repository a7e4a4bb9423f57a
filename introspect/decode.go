package introspect

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/choria-io/fisk"
	sjson "github.com/segmentio/encoding/json"
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

// decode is decodeWhole, faster: a large CLI's document (nats: 600 KB) is
// decoded on every start, before the first tools/list can be answered, so
// its top-level commands and the rest are decoded apart, on all CPUs, each
// scanned once (see splitDocument), the commands by a faster decoder (see
// decodeCommand). Whatever that path cannot read as decodeWhole would, it
// leaves to decodeWhole, so the model and every error are decodeWhole's.
func decode(doc []byte) (*fisk.ApplicationModel, error) {
	if app, ok := decodeSplit(doc); ok {
		return app, nil
	}
	// The split refuses what nests too deeply, among all else; the rest
	// is for encoding/json to accept or reject.
	if d := depth(doc); d > MaxDepth {
		return nil, fmt.Errorf("it nests %d levels deep, more than the %d read; a fisk application's model needs far fewer", d, MaxDepth)
	}
	return decodeWhole(doc)
}

// topLevel is an application model whose top-level commands are kept raw.
// The outer Commands field hides the embedded one of the same name.
type topLevel struct {
	*fisk.ApplicationModel
	Commands []json.RawMessage `json:"commands"`
}

// decodeSplit decodes the parts splitDocument finds, the largest first so
// that no CPU is left with a large part at the end; ok is false when the
// document does not split or a part does not decode.
func decodeSplit(doc []byte) (*fisk.ApplicationModel, bool) {
	rest, elems, ok := splitDocument(doc)
	if !ok {
		return nil, false
	}
	top := topLevel{ApplicationModel: &fisk.ApplicationModel{}}
	cmds := make([]*fisk.CmdModel, len(elems))
	// Part 0 is the rest of the document; part i+1 is command i.
	order := make([]int, len(elems)+1)
	for i := range order {
		order[i] = i
	}
	size := func(part int) int {
		if part == 0 {
			return len(rest)
		}
		return len(elems[part-1])
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(order) && !failed.Load(); j = int(next.Add(1) - 1) {
				var err error
				if part := order[j]; part == 0 {
					err = decodeTop(rest, &top)
				} else {
					err = decodeCommand(elems[part-1], &cmds[part-1])
				}
				if err != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil, false
	}
	app := top.ApplicationModel
	if app.Name == "" {
		return nil, false
	}
	app.CmdGroupModel = &fisk.CmdGroupModel{Commands: cmds}
	return app, true
}

// decodeTop decodes the whole document into top, which must be all of it.
func decodeTop(doc []byte, top *topLevel) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(top); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON document")
	}
	return nil
}

// decodeOne decodes one value, keeping numbers as json.Number.
func decodeOne[T any](raw []byte, v *T) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// decodeCommand decodes one top-level command of a split document with
// segmentio/encoding, the decoder the MCP SDK uses for every message: for
// nats's 600 KB it takes under a fifth of encoding/json's time. It is used
// only for a *fisk.CmdModel decoded as the root of its own decode. From
// there it reads every nested command; decoding a whole ApplicationModel,
// it drops the commands two levels down (the embedded, recursive
// *CmdGroupModel), which is why the document is never handed to it whole.
// A part it fails on, or leaves anything after, goes to decodeOne, so
// errors stay encoding/json's; the decode tests and their fuzz target
// check that a model it reads equals decodeWhole's.
func decodeCommand(raw []byte, v **fisk.CmdModel) error {
	if fastDecode(raw, v) {
		return nil
	}
	*v = nil
	return decodeOne(raw, v)
}

// fastParse is the faster decoder's entry point, a variable so that a test
// can stand in a decoder that fails in ways the real one has not yet.
var fastParse = sjson.Parse

// fastDecode reports whether fastParse read raw into v, all of it. A panic
// in it (it is a decoder with unsafe code, given an application's output)
// counts as failing, so that encoding/json decides, rather than ending the
// server.
func fastDecode(raw []byte, v **fisk.CmdModel) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	rest, err := fastParse(raw, v, sjson.UseNumber)
	return err == nil && len(bytes.TrimSpace(rest)) == 0
}

// decodeWhole decodes the document with its top-level commands kept raw,
// then each command on its own goroutine.
func decodeWhole(doc []byte) (*fisk.ApplicationModel, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, errors.New("it printed nothing")
	}
	top := topLevel{ApplicationModel: &fisk.ApplicationModel{}}
	if err := decodeTop(doc, &top); err != nil {
		return nil, err
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
		wg.Go(func() { errs[i] = decodeOne(raw, &cmds[i]) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("commands[%d]: %w", i, err)
		}
	}
	return cmds, nil
}
