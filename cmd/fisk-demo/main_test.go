package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

var demoBin string

func TestMain(m *testing.M) {
	testsupport.Main(m, func(s *testsupport.Setup) (err error) {
		demoBin, err = s.Build("github.com/fisk-mcp/fisk-mcp/cmd/fisk-demo", "fisk-demo")
		return err
	})
}

// demoRun runs fisk-demo against state and returns its combined output.
func demoRun(t *testing.T, state string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(demoBin, append([]string{"--state-dir", state}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustRun(t *testing.T, state string, args ...string) string {
	t.Helper()
	out, err := demoRun(t, state, args...)
	if err != nil {
		t.Fatalf("fisk-demo %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func listJSON(t *testing.T, state string) []Service {
	t.Helper()
	var list []Service
	out := mustRun(t, state, "--format", "json", "service", "ls")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("service ls --format json is not a JSON list: %v\n%s", err, out)
	}
	return list
}

func TestServiceLifecycleChangesTheInventory(t *testing.T) {
	state := t.TempDir()
	if out := mustRun(t, state, "service", "ls"); !strings.Contains(out, "No services") {
		t.Errorf("a fresh state directory is not an empty inventory:\n%s", out)
	}
	mustRun(t, state, "service", "add", "web", "--port", "8080", "--owner", "frontend")
	mustRun(t, state, "service", "restart", "web")
	mustRun(t, state, "service", "restart", "web")

	list := listJSON(t, state)
	if len(list) != 1 || list[0].Name != "web" || list[0].Port != 8080 || list[0].Owner != "frontend" ||
		list[0].Status != "running" || list[0].Restarts != 2 || list[0].Restarted == nil {
		t.Errorf("after add and two restarts: %+v", list)
	}

	mustRun(t, state, "service", "rm", "web")
	if list := listJSON(t, state); len(list) != 0 {
		t.Errorf("after rm the inventory still holds %+v", list)
	}
}

func TestInvalidChangesAreRefusedAndLeaveTheInventoryAlone(t *testing.T) {
	state := t.TempDir()
	mustRun(t, state, "service", "add", "web", "--port", "8080")
	for _, args := range [][]string{
		{"service", "add", "web", "--port", "9090"},   // name taken
		{"service", "add", "api", "--port", "8080"},   // port taken
		{"service", "add", "Bad_Name", "--port", "1"}, // invalid name
		{"service", "restart", "missing"},
		{"service", "rm", "missing"},
		{"maintenance", "purge-all"}, // without --yes
	} {
		if out, err := demoRun(t, state, args...); err == nil {
			t.Errorf("fisk-demo %s succeeded:\n%s", strings.Join(args, " "), out)
		}
	}
	if list := listJSON(t, state); len(list) != 1 || list[0].Port != 8080 || list[0].Status != "stopped" {
		t.Errorf("refused commands changed the inventory: %+v", list)
	}
}

func TestConcurrentAddsAreAllKept(t *testing.T) {
	state := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			out, err := demoRun(t, state, "service", "add", fmt.Sprintf("svc-%d", i), "--port", fmt.Sprint(9000+i))
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if list := listJSON(t, state); len(list) != n {
		t.Errorf("%d concurrent adds left %d services: an update was lost", n, len(list))
	}
}
