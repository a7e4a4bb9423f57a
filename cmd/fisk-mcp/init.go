package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/listing"
	"github.com/fisk-mcp/fisk-mcp/ownfiles"
	"github.com/fisk-mcp/fisk-mcp/plan"
)

type initOptions struct {
	apps  []string
	out   string
	force bool
}

func (c *cli) registerInit(app *fisk.Application) {
	o := &initOptions{}
	cmd := app.Command("init", "Draft a commented configuration file from the apps' tags, for a person to review before serving").Action(func(*fisk.ParseContext) error { return c.runInit(o) })
	cmd.HelpLong("The draft lists the apps, maps the app's own tags that say a command only reads (impact:ro) onto ai:read_only and gates those that say it writes (impact:rw), and names what is left ungated. It is the file fisk-mcp serve --config reads; nothing is served until a person has read it.")
	cmd.Flag("output", "Write the draft to FILE instead of stdout").Short('o').PlaceHolder("FILE").StringVar(&o.out)
	cmd.Flag("force", "With --output, replace an existing FILE").UnNegatableBoolVar(&o.force)
	cmd.Arg("app", "fisk binaries: PATH, or PREFIX=PATH to prefix the app's tool names").Required().StringsVar(&o.apps)
}

func (c *cli) runInit(o *initOptions) error {
	// The apps as they are, under no settings: the draft is what sets them.
	l := plan.Loader{Env: execrunner.NewEnvironment(os.Environ(), execrunner.EnvRule{})}
	var apps []listing.DraftApp
	outDir := ""
	if o.out != "" {
		outDir, _ = filepath.Abs(filepath.Dir(o.out))
	}
	for _, arg := range o.apps {
		a, err := exposure.ParseApp(arg)
		if err != nil {
			return err
		}
		draft := listing.DraftApp{Path: a.Path, Prefix: a.Prefix}
		if a.Path, err = exposure.ResolveBinary(a.Path); err != nil {
			return err
		}
		// A name looked up in PATH stays a name, which the file looks up too;
		// a binary beside the file or below it is named relative to it.
		if strings.Contains(draft.Path, "/") {
			draft.Path = a.Path
			if rel, err := filepath.Rel(outDir, a.Path); err == nil && outDir != "" && filepath.IsLocal(rel) {
				draft.Path = "./" + filepath.ToSlash(rel)
			}
		}
		l.Apps, apps = append(l.Apps, a), append(apps, draft)
	}
	set, err := l.Load(c.ctx)
	if err != nil {
		return err
	}
	for _, w := range set.Warnings() {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	var draft bytes.Buffer
	if err := listing.WriteDraft(&draft, apps, listing.Assess(set, exposure.Policy{})); err != nil {
		return err
	}
	if o.out == "" {
		_, err := c.stdout.Write(draft.Bytes())
		return err
	}
	if err := writeDraft(o.out, draft.Bytes(), o.force); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "wrote %s; review it, then: fisk-mcp tools --config %s\n", o.out, o.out)
	return nil
}

// writeDraft writes data to path, a new file unless force replaces one.
func writeDraft(path string, data []byte, force bool) error {
	err := ownfiles.WriteFile(path, !force, func(w io.Writer) error { _, err := w.Write(data); return err })
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: review it, or pass --force to replace it", path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w; choose a file in a directory of yours", path, err)
	}
	return nil
}
