package exposure_test

import (
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Collision and compile messages, at startup and on reload: each must name
// what collided once and give advice that can work.

func TestTwoSiblingCommandsOfOneNameAreBlamedOnTheApplication(t *testing.T) {
	for _, prefix := range []string{"", "p"} {
		a := fixtureApp(t, prefix)
		duplicateSibling(t, a.Model)
		_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
		if err == nil {
			t.Fatal("an application declaring echo twice loaded")
		}
		name := "echo"
		if prefix != "" {
			name = "p_echo"
		}
		msg := err.Error()
		for _, want := range []string{
			`itself declares two commands "echo", both becoming tool "` + name + `"`,
			"rename one in the application",
			"--exclude '^" + name + "$'",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("prefix %q: error does not say %q:\n%s", prefix, want, msg)
			}
		}
		if strings.Contains(msg, "give one application a prefix") {
			t.Errorf("prefix %q: advises a prefix, which cannot separate two commands of one application:\n%s", prefix, msg)
		}
	}
}

func TestCollisionInsideOneApplicationDoesNotAdviseAPrefix(t *testing.T) {
	a := fixtureApp(t, "")
	intraAppCollision(t, a.Model)
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "give one application a prefix") || !strings.Contains(msg, "two commands of one application") || !strings.Contains(msg, "--exclude '^admin_user_list$'") {
		t.Errorf("error = %s", msg)
	}
}

func TestShortenedNameCollisionAdvisesExcludingTheFinalName(t *testing.T) {
	a := fixtureApp(t, "")
	long := strings.Repeat("x", 70)
	findCommand(t, a.Model, "echo").Name = long
	twin := *findCommand(t, a.Model, long)
	a.Model.Commands = append(a.Model.Commands, &twin)
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "--exclude '^"+long) || !strings.Contains(msg, "--exclude '^xxxx") {
		t.Errorf("the advice must name the final, shortened name, which is what --exclude matches:\n%s", msg)
	}
}

func TestCommandThatCannotCompileIsNamedOnce(t *testing.T) {
	a := fixtureApp(t, "")
	findCommand(t, a.Model, "echo").Name = "-echo" // cannot be passed as an argument
	_, err := exposure.Build([]exposure.LoadedApp{a}, nil, exposure.Policy{})
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	if n := strings.Count(msg, `command "-echo"`); n != 1 {
		t.Errorf("the command is named %d times, want once:\n%s", n, msg)
	}
	if !strings.HasPrefix(msg, `application "`+fixtureBin+`": command "-echo": `) {
		t.Errorf("error = %s", msg)
	}
}
