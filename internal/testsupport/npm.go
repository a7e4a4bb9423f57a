package testsupport

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Node22 is the Node.js installed beside an npm tool that needs a newer
// Node than the machine's (InstallNPM).
const Node22 = "node@22.23.3"

// InstallNPM returns the directory, in the test tool cache, of the npm
// package pkg at version, installed there with npm on first use (its
// commands are in node_modules/.bin); with node22, Node 22 is installed
// beside it (node_modules/node/bin). The npm registry is the only network
// it reaches.
func InstallNPM(pkg, version string, node22 bool) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not installed: %w", err)
	}
	name := "npm-" + strings.NewReplacer("@", "", "/", "-").Replace(pkg)
	return InstallTool(name, version, func(dir string) error {
		args := []string{"install", "--prefix", dir, "--no-audit", "--no-fund", pkg + "@" + version}
		if node22 {
			args = append(args, Node22)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("npm %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	})
}
