package execrunner

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestAGivenDisplayLineIsReportedAsGiven(t *testing.T) {
	c := helperCmd("echo", "hello")
	c.CommandLine = "shown to the person"
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.CommandLine != "shown to the person" {
		t.Errorf("CommandLine = %q, want the line the caller gave", res.CommandLine)
	}

	missing := Command{Path: filepath.Join(t.TempDir(), "missing"), CommandLine: "shown"}
	var se *StartError
	if _, err := Run(context.Background(), missing); !errors.As(err, &se) || se.CommandLine != "shown" {
		t.Errorf("start error = %v, want one naming the given line", err)
	}
}
