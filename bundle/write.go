package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/fisk-mcp/fisk-mcp/ownfiles"
)

// epoch is the time of every entry: the earliest a zip's MS-DOS date can
// hold, so that nothing of when the bundle was built goes in.
var epoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Write writes s's bundle to w: the manifest, fisk-mcp, then the copied
// apps in order, each with a fixed time and mode (0755 for the programs),
// deflated. Equal specs over equal files give equal bytes.
func Write(w io.Writer, s Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(s.Manifest(), "", "  ")
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	if err := add(zw, ManifestName, 0o644, bytes.NewReader(append(manifest, '\n'))); err != nil {
		return err
	}
	if err := addFile(zw, ServerPath, s.Server); err != nil {
		return err
	}
	for i, entry := range s.entries() {
		if entry == "" {
			continue
		}
		if err := addFile(zw, entry, s.Apps[i].Path); err != nil {
			return err
		}
	}
	return zw.Close()
}

// WriteFile writes s's bundle to path, atomically: a bundle is either
// complete or not there, whatever interrupts the writing. The path must end
// in .mcpb, the extension Claude Desktop installs, in a directory of the
// user's own (see package ownfiles); the bundle's mode is that of the file
// it replaces, or 0600.
func WriteFile(path string, s Spec) error {
	if !strings.HasSuffix(path, ".mcpb") {
		return fmt.Errorf("%q: name the bundle NAME.mcpb, the extension Claude Desktop installs", path)
	}
	if err := ownfiles.WriteFile(path, false, func(w io.Writer) error { return Write(w, s) }); err != nil {
		return fmt.Errorf("writing the bundle: %w", err)
	}
	return nil
}

func addFile(zw *zip.Writer, name, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("packing %s: %w", src, err)
	}
	defer f.Close()
	return add(zw, name, 0o755, f)
}

func add(zw *zip.Writer, name string, mode fs.FileMode, r io.Reader) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: epoch}
	h.SetMode(mode)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("packing %s: %w", name, err)
	}
	return nil
}
