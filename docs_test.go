package fiskmcp_test

// The documentation's examples are checked here, so that they cannot drift
// from what the binaries print.
//
// The convention: a fenced block marked console holds commands, each on a
// line starting with "$ " (a line ending in "\" continues it, and so does
// a here-document, <<'EOF' up to EOF), followed by exactly what they
// print, stdout and stderr together as a terminal shows them. Commands
// that cannot run here (a client, a network service, a server that runs
// until stopped) go in blocks marked sh, which are not run, and carry no
// "$ ".
//
// Each page's console blocks run in order, as a person following the page
// would, in a home of the page's own, /home/you in the docs, with
// fisk-mcp and fisk-demo installed in ~/go/bin as go install puts them,
// that directory first on PATH, and the home as the working directory;
// each command runs through sh. The real output is compared after the
// home, the temporary directory, the platform and the time of log lines
// are written as the docs write them (/home/you, /tmp, linux/amd64,
// 12:00:00.000) and trailing spaces are dropped. A command's stdin is
// empty, so a server over stdio starts, logs and stops.
//
//	go test -run TestDocs -update-docs .
//
// writes the real outputs into the files instead, for review with git diff.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/fisk-mcp/fisk-mcp/internal/testsupport"
)

var updateDocs = flag.Bool("update-docs", false, "write the real outputs of the docs' console blocks into the files")

// docHome is the home directory the docs show.
const docHome = "/home/you"

// logTime matches the time that starts a text log line, which the docs
// show as docLogTime.
var logTime = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d\d\d `)

const docLogTime = "12:00:00.000 "

// docFiles are the pages whose blocks and links are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

// block is one fenced block of a page.
type block struct {
	lang   string
	line   int      // of the opening fence, 1-based
	indent string   // of the opening fence, taken off every line
	lines  []string // between the fences
}

// command is one "$ " command of a console block and the output shown
// after it.
type command struct {
	line   int // of the "$ ", 1-based
	text   string
	output []string
	first  int    // line of the first output line, 1-based
	indent string // of the block
}

// blocks returns a page's fenced blocks; an unclosed fence is an error.
func blocks(page string) ([]block, error) {
	var out []block
	var cur *block
	for i, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if rest, ok := strings.CutPrefix(trimmed, "```"); ok {
				indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
				cur = &block{lang: strings.TrimSpace(rest), line: i + 1, indent: indent}
			}
			continue
		}
		if trimmed == "```" {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.lines = append(cur.lines, strings.TrimPrefix(line, cur.indent))
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the fence is never closed", cur.line)
	}
	return out, nil
}

// heredoc matches a command that ends in a here-document (<<'EOF'), whose
// lines, up to the word alone on a line, belong to the command.
var heredoc = regexp.MustCompile(`<<-?'?([A-Za-z_]+)'?$`)

// commands splits a console block into its commands.
func (b block) commands() ([]command, error) {
	var out []command
	for i := 0; i < len(b.lines); i++ {
		line := b.lines[i]
		text, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			if len(out) == 0 {
				return nil, fmt.Errorf("line %d: a console block starts with a \"$ \" command", b.line+1+i)
			}
			c := &out[len(out)-1]
			c.output = append(c.output, line)
			continue
		}
		c := command{line: b.line + 1 + i, text: text, indent: b.indent}
		for strings.HasSuffix(c.text, `\`) && i+1 < len(b.lines) {
			i++
			c.text += "\n" + b.lines[i]
		}
		if m := heredoc.FindStringSubmatch(c.text); m != nil {
			for i+1 < len(b.lines) {
				i++
				c.text += "\n" + b.lines[i]
				if b.lines[i] == m[1] {
					break
				}
			}
		}
		c.first = b.line + 2 + i
		out = append(out, c)
	}
	return out, nil
}

// trimLines splits out into lines without trailing spaces or trailing
// blank lines, as the docs and the real output are compared.
func trimLines(out string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func TestDocsConsoleBlocksShowTheRealOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the docs show what fisk-mcp prints on Linux")
	}
	var bins []string
	for _, name := range []string{"fisk-mcp", "fisk-demo"} {
		bin, cleanup, err := testsupport.Build(module+"/cmd/"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cleanup)
		bins = append(bins, bin)
	}

	checked := 0
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		bs, err := blocks(string(data))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var updates []update
		pg := newSandbox(t, bins)
		for _, b := range bs {
			if b.lang != "console" {
				for i, l := range b.lines {
					if strings.HasPrefix(l, "$ ") {
						t.Errorf("%s:%d: a \"$ \" command in a %q block is never run: mark the block console to check it, or drop the \"$ \"", file, b.line+1+i, b.lang)
					}
				}
				continue
			}
			checked++
			cmds, err := b.commands()
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			t.Run(fmt.Sprintf("%s:%d", file, b.line), func(t *testing.T) {
				for i, real := range pg.run(t, cmds) {
					c := cmds[i]
					if *updateDocs {
						updates = append(updates, update{c, real})
					} else if want := trimLines(strings.Join(c.output, "\n")); !slices.Equal(want, real) {
						t.Errorf("%s:%d: the output of $ %s differs from the docs (-documented +real):\n%s",
							file, c.line, firstLine(c.text), diff(want, real))
					}
				}
			})
		}
		if len(updates) > 0 {
			if err := os.WriteFile(file, []byte(rewrite(string(data), updates)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no console block found: the docs' examples are no longer checked")
	}
	t.Logf("%d console blocks checked", checked)
}

// sandbox is where a page's console blocks run: a home of its own with the
// binaries installed in ~/go/bin, and the environment of its commands.
type sandbox struct {
	home, tmp string
	env       []string
}

// newSandbox makes a page's home, as the docs describe it.
func newSandbox(t *testing.T, bins []string) sandbox {
	t.Helper()
	root := t.TempDir()
	p := sandbox{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	gobin := filepath.Join(p.home, "go", "bin")
	for _, dir := range []string{gobin, p.tmp} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, bin := range bins {
		// A hard link keeps the path the binary was started by, which
		// fisk-mcp writes into client configurations.
		dst := filepath.Join(gobin, filepath.Base(bin))
		if err := os.Link(bin, dst); err != nil {
			testsupport.CopyFile(t, bin, dst)
		}
	}
	p.env = []string{
		"HOME=" + p.home, "USER=you", "LOGNAME=you", "TMPDIR=" + p.tmp, "LANG=C.UTF-8",
		"PATH=" + gobin + ":/usr/local/bin:/usr/bin:/bin",
	}
	return p
}

// run runs a console block's commands in order in the page's home and
// returns their outputs, written as the docs write them: the home, the
// temporary directory and the platform as /home/you, /tmp and linux/amd64,
// and the time of a log line as 12:00:00.000.
func (p sandbox) run(t *testing.T, cmds []command) [][]string {
	t.Helper()
	out := make([][]string, len(cmds))
	for i, c := range cmds {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", c.text)
		cmd.Dir, cmd.Env = p.home, p.env
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		cmd.WaitDelay = time.Second // a command left running must not hold the output open
		// The exit status is not compared: the docs show what a person
		// sees, and an error shows in the output.
		if err := cmd.Run(); ctx.Err() != nil {
			t.Errorf("$ %s: %v after a minute", firstLine(c.text), err)
		}
		cancel()
		r := strings.NewReplacer(p.home, docHome, p.tmp, "/tmp", runtime.GOOS+"/"+runtime.GOARCH, "linux/amd64")
		out[i] = trimLines(logTime.ReplaceAllString(r.Replace(buf.String()), docLogTime))
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// diff lists want and got line by line, "-" for a line only documented,
// "+" for one only printed, over their longest common subsequence.
func diff(want, got []string) string {
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			fmt.Fprintf(&b, "  %s\n", want[i])
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&b, "- %s\n", want[i])
			i++
		default:
			fmt.Fprintf(&b, "+ %s\n", got[j])
			j++
		}
	}
	return b.String()
}

// update is a documented command and its real output, for -update-docs.
type update struct {
	doc  command
	real []string
}

// rewrite puts the real outputs in place of the documented ones.
func rewrite(page string, updates []update) string {
	lines := strings.Split(page, "\n")
	// From the last command back, so that the line numbers of the ones
	// before still hold.
	for _, u := range slices.Backward(updates) {
		start := u.doc.first - 1
		tail := slices.Clone(lines[start+len(u.doc.output):])
		lines = lines[:start]
		for _, l := range u.real {
			if l != "" {
				l = u.doc.indent + l
			}
			lines = append(lines, l)
		}
		lines = append(lines, tail...)
	}
	return strings.Join(lines, "\n")
}

// link matches a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestDocsRelativeLinksPointAtFilesAndHeadings(t *testing.T) {
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range prose(string(data)) {
			n := i + 1
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", file, n, target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %s: an anchor in a file that is not Markdown", file, n, target)
					continue
				}
				page, err := os.ReadFile(dest)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(anchors(string(page)), anchor) {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s", file, n, target, dest, anchor)
				}
			}
		}
	}
}

// prose returns a page's lines outside fenced blocks, with fenced lines
// left empty, so that line n is at index n-1.
func prose(page string) []string {
	lines := strings.Split(page, "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as "-", a repeated one numbered.
func anchors(page string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range prose(page) {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		text = strings.TrimSpace(strings.TrimLeft(text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, k))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// Every flag of every command is in the configuration reference, so a new
// flag cannot ship undocumented.
func TestEveryFlagIsInTheConfigurationReference(t *testing.T) {
	bin, cleanup, err := testsupport.Build(module+"/cmd/fisk-mcp", "fisk-mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	read := func(page string) string {
		data, err := os.ReadFile(filepath.Join("docs", page))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// serve's and tools' flags are in the reference; the other commands'
	// flags may be on the page about them instead.
	ref := read("configuration.md")
	pages := map[string]string{"config": ref + read("clients.md"), "bundle": ref + read("clients.md"), "policy check": ref + read("teams.md")}
	flagRe := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]+)`)
	seen := 0
	for _, cmd := range []string{"serve", "tools", "config", "bundle", "init", "policy check"} {
		out, _ := exec.Command(bin, append(strings.Fields(cmd), "--help")...).CombinedOutput()
		for _, m := range flagRe.FindAllStringSubmatch(string(out), -1) {
			name := m[1]
			if name == "help" || name == "version" || name == "help-long" || name == "help-man" {
				continue
			}
			seen++
			doc, ok := pages[cmd]
			if !ok {
				doc = ref
			}
			if !strings.Contains(doc, "`--"+name) {
				t.Errorf("fisk-mcp %s --%s is not in docs/configuration.md (or the page of its command)", cmd, name)
			}
		}
	}
	if seen < 40 {
		t.Fatalf("read %d flags from the commands' help, want the whole set (did the help's layout change?)", seen)
	}
}
