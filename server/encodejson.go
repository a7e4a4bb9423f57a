package server

import (
	sjson "github.com/segmentio/encoding/json"
)

// appendJSON appends v to dst in the bytes a json.Encoder without HTML
// escaping writes for it (object members sorted by key), for the values a
// decoded JSON document is made of and those a schema built in Go holds.
// It reports false for a value it cannot write (NaN, an infinity, an
// invalid json.Number), so that the caller asks encoding/json, which
// reports it.
//
// It exists because every listed tool's input schema is encoded on the way
// to the first tools/list, and encoding/json walks a map[string]any by
// reflection, sorting each object's keys through reflect values: on a
// large CLI that was most of the registration's CPU. segmentio's encoder,
// which the SDK decodes with, writes the same bytes without reflecting
// over maps (the tests hold it to encoding/json's bytes).
func appendJSON(dst []byte, v any) ([]byte, bool) {
	out, err := sjson.Append(dst, v, sjson.SortMapKeys)
	// It writes a json.Number as it is: what it wrote is checked, so that
	// a number that is none ("01") reaches encoding/json, which refuses it
	// (one with white space around it, which no decoder gives, passes: it
	// is still JSON).
	if err != nil || !sjson.Valid(out[len(dst):]) {
		return dst, false
	}
	return out, true
}

// appendJSONString writes s as encoding/json does without HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	return sjson.AppendEscape(dst, s, 0)
}
