package main

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/bundle"
)

// TestBundleSaysHowToInstallItOnItsPlatform: Claude Desktop opens a macOS
// bundle; on Linux, where it does not run, the message says what to do.
func TestBundleSaysHowToInstallItOnItsPlatform(t *testing.T) {
	mac := bundleWritten("demo.mcpb", 3, "demo", bundle.Platform{OS: "darwin", Arch: "arm64"})
	if want := "wrote demo.mcpb: 3 tools of demo for darwin/arm64; open it in Claude Desktop to install it"; mac != want {
		t.Errorf("macOS: %q, want %q", mac, want)
	}
	linux := bundleWritten("demo.mcpb", 3, "demo", bundle.Platform{OS: "linux", Arch: "amd64"})
	for _, want := range []string{"for linux/amd64", "Claude Desktop runs on macOS and Windows only", "fisk-mcp bundle on the Mac", "fisk-mcp config CLIENT --install"} {
		if !strings.Contains(linux, want) {
			t.Errorf("Linux: %q does not say %q", linux, want)
		}
	}
	if strings.Contains(linux, "open it in Claude Desktop") {
		t.Errorf("Linux: %q sends the person to Claude Desktop", linux)
	}
}
