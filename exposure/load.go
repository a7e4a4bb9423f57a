package exposure

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/execrunner"
	"github.com/fisk-mcp/fisk-mcp/fileid"
	"github.com/fisk-mcp/fisk-mcp/introspect"
)

// LoadedApp is an App together with its introspected model.
//
// Load also records the identity of the binary file the model was read from
// (see ErrBinaryChanged) and the SHA-256 of its content, and the app's
// command tools are bound to exactly that file. A LoadedApp made by the
// caller, with a model from elsewhere, carries none: Build then binds each
// command tool to the file at the path when the set is built.
type LoadedApp struct {
	App
	Model *fisk.ApplicationModel

	// binary is the file as it was, unchanged, across the whole
	// introspection that produced Model, and the hash of its content; nil
	// when the model did not come from Load.
	binary *loadedBinary
}

// LoadOptions controls Load.
type LoadOptions struct {
	// Introspect is passed to introspect.Load for every app (environment,
	// timeout, size bound). A nil Introspect.Env means
	// execrunner.Environ(os.Environ(), nil): the server's environment
	// without the built-in credential variables, plus LLMFORMAT=1, as a
	// command would get it. introspect's own nil default is the unscrubbed
	// os.Environ(), which would hand the server's LLM and cloud keys to
	// every binary it introspects. A caller with its own rule (--scrub-env,
	// --keep-env) passes its Environment's For(nil), used as given.
	Introspect introspect.Options
	// Reload selects live-reload semantics: a name collision skips the later
	// tool and records it in ToolSet.Skipped instead of failing the load.
	Reload bool
	// Previous is the set in force when reloading. A tool it serves keeps
	// its name, and a newcomer claiming that name is skipped (see Rebuild).
	// A non-nil Previous implies Reload.
	Previous *ToolSet
}

// Load introspects every app (concurrently; results keep the configured
// order), in a scrubbed environment unless o says otherwise (see
// LoadOptions.Introspect), and builds the tool set from them and the custom
// tools.
//
// Each app's command tools are bound to the binary file that was
// introspected: the file at the path must be the same before and after its
// introspection, or the introspection is repeated once (the file was being
// replaced, as a deployment renames a new build over the old one); a file
// that changes again fails the load. Without this, a file swapped in while
// the set was built would run under tools describing the program before it.
//
// The first failing app in configured order is reported, so the error does
// not depend on which introspection finished first; it is the
// *introspect.Error, which names the binary, or the error saying the binary
// kept changing.
func Load(ctx context.Context, apps []App, custom []Tool, p Policy, o LoadOptions) (*ToolSet, error) {
	loaded := make([]LoadedApp, len(apps))
	errs := make([]error, len(apps))
	var wg sync.WaitGroup
	for _, a := range apps {
		if err := a.validate(); err != nil {
			return nil, err
		}
	}
	if o.Introspect.Env == nil {
		o.Introspect.Env = execrunner.Environ(os.Environ(), nil)
	}
	for i, a := range apps {
		wg.Go(func() {
			loaded[i], errs[i] = introspectApp(ctx, a, o.Introspect)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if o.Reload || o.Previous != nil {
		return Rebuild(loaded, custom, p, o.Previous)
	}
	return Build(loaded, custom, p)
}

// introspectApp introspects a and records the identity of the file the
// model came from; its content is hashed later, when a binding first needs
// it or the caller asks (see loadedBinary.content).
//
// The identity must be of the very file that answered the introspection,
// or its tools could run, and a replica bind its approvals to, bytes that
// never described them. It is reached by the path, as a command would run
// it (see fileid.Stat), before the introspection starts and after it has
// finished: both equal means one file was at the path throughout and
// unchanged, since another file renamed over the path changes device and
// inode, a write in place changes size and times, and the change time
// cannot be set back by the writer. (A file system whose times are coarser
// than the write could hide a rewrite within one tick; the stat check
// before each exec has the same limit.) The hash taken later stands for
// the file only if it reads that identity from open to end; every run is
// held to it too. One retry absorbs a replacement in progress; a second
// change is reported rather than retried forever, since a file that never
// settles cannot be bound to anything.
//
// A file that can be run but not read (execute-only) has no hash; its
// tools are bound to its identity instead, which holds on this host only,
// so their approvals do not cross replicas.
//
// The model's volatile text is normalised (see stabilise), so two loads
// of the same file describe the same tools.
func introspectApp(ctx context.Context, a App, o introspect.Options) (LoadedApp, error) {
	var change string
	for range 2 {
		before, beforeErr := fileid.Stat(a.Path)
		model, err := introspect.Load(ctx, a.Path, o)
		if err != nil {
			return LoadedApp{}, err
		}
		after, afterErr := fileid.Stat(a.Path)
		switch {
		case beforeErr != nil:
			change = fmt.Sprintf("could not be examined before it was introspected (%v)", beforeErr)
		case afterErr != nil:
			change = fmt.Sprintf("could not be examined after it was introspected (%v)", afterErr)
		default:
			change = before.Differs(after)
		}
		if change == "" {
			stabilise(model, time.Now())
			return LoadedApp{App: a, Model: model, binary: introspectedBinary(a.Path, before)}, nil
		}
	}
	return LoadedApp{}, fmt.Errorf("application %q: the binary changed while it was being introspected; try again (%s %s, twice in a row; wait until whatever replaces it has finished)", a.label(), a.Path, change)
}
