package settings_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/settings"
)

func TestProblemsReportsEveryErrorOnItsOwnLine(t *testing.T) {
	if err := settings.Problems([]error{nil, errors.Join()}); err != nil {
		t.Errorf("no errors: %v", err)
	}
	one := errors.New("one")
	if err := settings.Problems([]error{one}); err != one {
		t.Errorf("a single error: %v", err)
	}
	err := settings.Problems([]error{one, errors.Join(errors.New("two"), errors.New("three"))})
	if want := "3 problems:\n  - one\n  - two\n  - three"; err == nil || err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestRegexpsNamesEachBadExpressionByItsEntry(t *testing.T) {
	what := func(i int) string { return "--include #" + string(rune('0'+i)) }
	res, errs := settings.Regexps(what, []string{"^ok$", "(", "x"})
	if len(res) != 2 || len(errs) != 1 {
		t.Fatalf("compiled %d, errors %v", len(res), errs)
	}
	if got := errs[0].Error(); !strings.HasPrefix(got, `--include #1 "(" is not a valid regular expression (missing closing ): `) || !strings.HasSuffix(got, "fix it (Go RE2 syntax)") {
		t.Errorf("error = %q", got)
	}
}
