package settings_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/settings"
)

// values is what a command's settings fill.
type values struct {
	Name    string
	Tags    []string
	Watch   bool
	Workers int
	Timeout time.Duration
	Key     string
	Files   []string
}

func bind(v *values) *settings.Set {
	return &settings.Set{List: []*settings.Setting{
		{Name: "name", Help: "The name", Value: &v.Name},
		{Name: "tag", Help: "A tag (repeatable)", PlaceHolder: "TAG", Value: &v.Tags},
		{Name: "watch", Help: "Watch", Value: &v.Watch},
		{Name: "workers", Help: "Workers", Default: "4", Value: &v.Workers},
		{Name: "timeout", Help: "Timeout", Default: "30s", Value: &v.Timeout},
		{Name: "key-file", Help: "Key", Path: true, Value: &v.Key},
		{Name: "file", Help: "A file (repeatable)", Path: true, Value: &v.Files},
	}}
}

// parse parses args into a fresh set, as fisk-mcp does.
func parse(t *testing.T, args ...string) (*values, *settings.Set) {
	t.Helper()
	v := &values{}
	set := bind(v)
	app := fisk.New("test", "")
	app.Terminate(func(int) { t.Fatalf("parse %v terminated", args) })
	set.Register(app.Command("run", ""))
	if _, err := app.Parse(append([]string{"run"}, args...)); err != nil {
		t.Fatal(err)
	}
	return v, set
}

// file decodes a configuration document into a set of its own.
func file(t *testing.T, doc string) *settings.Set {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	set := bind(&values{})
	if err := set.Normalize(obj, ""); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(obj)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		t.Fatal(err)
	}
	if err := set.Decode(raw); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestTheCommandLineWinsAndListsAddToTheFile(t *testing.T) {
	v, set := parse(t, "--name", "flag", "--tag", "b", "--no-watch")
	set.Merge(file(t, `{"name": "file", "tag": "a", "watch": true, "workers": 8, "timeout": "1m"}`), "c.yaml")
	want := values{Name: "flag", Tags: []string{"a", "b"}, Watch: false, Workers: 8, Timeout: time.Minute}
	if !slices.Equal(v.Tags, want.Tags) || v.Name != want.Name || v.Watch || v.Workers != 8 || v.Timeout != time.Minute {
		t.Errorf("merged = %+v, want %+v", *v, want)
	}
	for name, named := range map[string]string{"name": "--name", "watch": "--watch", "workers": "config c.yaml: workers", "timeout": "config c.yaml: timeout"} {
		if got := set.Named(name); got != named {
			t.Errorf("Named(%q) = %q, want %q", name, got, named)
		}
	}
	if got := []string{set.Item("tag")(0), set.Item("tag")(1)}; !slices.Equal(got, []string{"config c.yaml: tag", "--tag"}) {
		t.Errorf("the file's entries come first: %q", got)
	}
}

func TestDefaultsHoldWithoutAFileOrAFlag(t *testing.T) {
	v, set := parse(t)
	set.Merge(file(t, `{}`), "c.yaml")
	if v.Workers != 4 || v.Timeout != 30*time.Second || set.Named("workers") != "--workers" {
		t.Errorf("defaults = %+v, named %s", *v, set.Named("workers"))
	}
}

func TestArgsRebuildWhatWasTypedWithAbsolutePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("key", []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, set := parse(t, "--tag", "a", "--tag", "b", "--no-watch", "--timeout", "1m", "--key-file", "key")
	args, err := set.Args()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--tag=a", "--tag=b", "--no-watch", "--timeout=1m0s", "--key-file=" + filepath.Join(dir, "key")}
	if !slices.Equal(args, want) {
		t.Errorf("args = %q, want %q", args, want)
	}
	_, set = parse(t, "--key-file", "missing")
	if _, err := set.Args(); err == nil || !strings.Contains(err.Error(), "the client would fail to start the server") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestNormalizeTakesThePluralAndOneString(t *testing.T) {
	set := bind(&values{})
	set.List[1].Name = "confirm-tag"
	obj := map[string]any{"confirm_tags": "x"}
	if err := set.Normalize(obj, ""); err != nil || !slices.Equal(obj["confirm_tag"].([]any), []any{"x"}) {
		t.Errorf("normalized = %v, %v", obj, err)
	}
	obj = map[string]any{"confirm_tag": "a", "confirm_tags": "b"}
	if err := set.Normalize(obj, "apps[0]."); err == nil || !strings.Contains(err.Error(), "both apps[0].confirm_tag and apps[0].confirm_tags") {
		t.Errorf("both spellings: %v", err)
	}
	set.List[1].Singular = true
	obj = map[string]any{"confirm_tags": []any{"x"}}
	if err := set.Normalize(obj, ""); err != nil || obj["confirm_tag"] != nil {
		t.Errorf("a singular key took its plural: %v", obj)
	}
}

func TestDecodeNamesTheKeyOfAValueNoGoTypeHolds(t *testing.T) {
	for doc, want := range map[string]string{
		`{"workers": 1e30}`:           "workers: the number is out of range",
		`{"timeout": "99999999999h"}`: "timeout: time: invalid duration",
	} {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatal(err)
		}
		err := bind(&values{}).Decode(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

func TestRelativeToAnchorsOnlyTheFilesPaths(t *testing.T) {
	v := &values{}
	set := bind(v)
	if err := set.Decode(map[string]json.RawMessage{"key_file": json.RawMessage(`"keys/k"`), "name": json.RawMessage(`"a/b"`), "file": json.RawMessage(`["x.yaml", "/abs/y.yaml", "d/z.yaml"]`)}); err != nil {
		t.Fatal(err)
	}
	set.RelativeTo("/etc/app")
	if v.Key != "/etc/app/keys/k" || v.Name != "a/b" || !slices.Equal(v.Files, []string{"/etc/app/x.yaml", "/abs/y.yaml", "/etc/app/d/z.yaml"}) {
		t.Errorf("after RelativeTo: %+v", *v)
	}
}

func ExampleSet_Merge() {
	var v struct {
		Tags    []string
		Timeout time.Duration
	}
	set := &settings.Set{List: []*settings.Setting{
		{Name: "tag", Help: "A tag", Value: &v.Tags},
		{Name: "timeout", Help: "A timeout", Default: "30s", Value: &v.Timeout},
	}}
	app := fisk.New("example", "")
	set.Register(app.Command("run", ""))
	if _, err := app.Parse([]string{"run", "--tag", "flag"}); err != nil {
		panic(err)
	}

	fromFile := &settings.Set{List: []*settings.Setting{
		{Name: "tag", Value: new([]string)}, {Name: "timeout", Value: new(time.Duration)},
	}}
	if err := fromFile.Decode(map[string]json.RawMessage{"tag": []byte(`["file"]`), "timeout": []byte(`"5s"`)}); err != nil {
		panic(err)
	}
	set.Merge(fromFile, "app.yaml")
	fmt.Println(v.Tags, v.Timeout, set.Named("timeout"))
	// Output: [file flag] 5s config app.yaml: timeout
}

// TestASettingOfOtherCommandsIsNeitherListedNorTakenButHasItsDefault: a
// command that does not take a setting has no flag for it, and the value
// is the default, as it would be had the flag been left out.
func TestASettingOfOtherCommandsIsNeitherListedNorTakenButHasItsDefault(t *testing.T) {
	var v values
	set := bind(&v)
	for _, s := range set.List {
		if s.Name == "workers" || s.Name == "timeout" {
			s.Commands = []string{"serve"}
		}
	}
	app := fisk.New("x", "")
	set.Register(app.Command("config", ""))
	if _, err := app.Parse([]string{"config", "--workers", "2"}); err == nil {
		t.Fatal("config took --workers")
	}
	if v.Workers != 4 || v.Timeout != 30*time.Second {
		t.Errorf("workers %d, timeout %s: want the defaults 4 and 30s", v.Workers, v.Timeout)
	}
}

// TestAValueThatDoesNotParseNamesTheFlagAndTheForm: fisk's own errors
// ("invalid duration") name neither.
func TestAValueThatDoesNotParseNamesTheFlagAndTheForm(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--timeout 10", "--timeout 10: give a duration with its unit, such as 10s or 2m"},
		{"--workers four", "--workers four: give a whole number, such as 4"},
	} {
		var v values
		app := fisk.New("x", "")
		bind(&v).Register(app.Command("serve", ""))
		_, err := app.Parse(append([]string{"serve"}, strings.Fields(tc.args)...))
		var ve *settings.ValueError
		if !errors.As(err, &ve) || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
