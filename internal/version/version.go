// Package version says which build of a program is running: the version
// it was stamped with at link time, or else what the Go toolchain recorded
// in the binary (the module version, the commit, whether the tree held
// changes, the commit's time), so that a binary built with plain
// `go build` or `go install` says something true about itself too.
//
// It reads; it does not stamp. The Makefile stamps with
// -ldflags "-X main.version=VERSION".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what is known of a build. Revision, Time and Modified come from
// the toolchain's version-control stamp, which `go build` records in a git
// checkout unless -buildvcs=false.
type Info struct {
	// Version is the stamped version, else the module version (v1.2.3, or a
	// pseudo-version when built from a checkout), else "devel" with the
	// short commit when one is known.
	Version  string
	Revision string // the full commit hash, or ""
	Time     string // the commit's time, RFC 3339, or ""
	Modified bool   // the checkout held changes the commit lacks
	Go       string // the toolchain that built it, e.g. go1.26.0
	Platform string // the GOOS/GOARCH it was built for
}

// Read is the Info of the running binary; stamped is the version set at
// link time ("" when none was).
func Read(stamped string) Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(stamped, bi)
}

func fromBuildInfo(stamped string, bi *debug.BuildInfo) Info {
	info := Info{Version: stamped, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		if info.Version == "" {
			info.Version = "devel"
		}
		return info
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	switch {
	case info.Version != "":
	case bi.Main.Version != "" && bi.Main.Version != "(devel)":
		info.Version = bi.Main.Version
	case info.Revision != "":
		info.Version = "devel-" + short(info.Revision)
		if info.Modified {
			info.Version += "-dirty"
		}
	default:
		info.Version = "devel"
	}
	return info
}

// String is the whole statement, on one line:
//
//	v1.2.3 (commit 0123456789ab, 2026-12-07T00:00:00Z; go1.26.0 linux/amd64)
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Version)
	b.WriteString(" (")
	switch {
	case i.Revision == "":
		b.WriteString("no commit recorded: built outside a git checkout, or with -buildvcs=false")
	default:
		fmt.Fprintf(&b, "commit %s", short(i.Revision))
		if i.Modified {
			b.WriteString(" with uncommitted changes")
		}
		if i.Time != "" {
			b.WriteString(", " + i.Time)
		}
	}
	fmt.Fprintf(&b, "; %s %s)", i.Go, i.Platform)
	return b.String()
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
