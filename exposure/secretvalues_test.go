package exposure_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fisk-mcp/fisk-mcp/exposure"
	"github.com/fisk-mcp/fisk-mcp/schema"
)

// A validation message quotes the value it rejects; under a secret flag it
// must not, whichever way the value is wrong, while the other violations of
// the same call keep their words.
func TestValidationErrorsDoNotRepeatTheValueOfASecretFlag(t *testing.T) {
	set, err := exposure.Load(t.Context(), []exposure.App{{Path: fixtureBin, Globals: []string{"password"}}}, nil,
		exposure.Policy{SecretFlags: []string{"label"}}, exposure.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	echo, ok := set.Lookup("echo")
	if !ok {
		t.Fatal("no echo tool")
	}
	const secret = "secret-value-in-error-1"
	for name, args := range map[string]map[string]any{
		"string for a list":   {"label": secret},
		"number in a list":    {"label": []any{json.Number("1234567890123")}},
		"list for a string":   {"password": []any{secret}},
		"number for a string": {"password": json.Number("1234567890123")},
	} {
		t.Run(name, func(t *testing.T) {
			args["context"], args["subject"], args["count"] = "c", "s", "not-a-number"
			raw, _ := json.Marshal(args)
			_, err := echo.Prepare(raw)
			var verr *schema.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Prepare(%s) = %v, want a validation error", raw, err)
			}
			msg := err.Error()
			if strings.Contains(msg, secret) || strings.Contains(msg, "1234567890123") {
				t.Errorf("the message repeats the secret: %s", msg)
			}
			if !strings.Contains(msg, `/count: expected integer, got string "not-a-number"`) {
				t.Errorf("the other violation lost its words: %s", msg)
			}
			if !strings.Contains(msg, "carries a secret") {
				t.Errorf("the message does not say why the value is not shown: %s", msg)
			}
		})
	}
	// A secret flag the tool does not have, or that is missing, has no
	// value to hide: its message still says what to do.
	_, err = echo.Prepare(json.RawMessage(`{"context":"c","subject":"s","debug-token":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "/debug-token: unknown property") {
		t.Errorf("an unknown secret flag: %v", err)
	}
}
