package exposure

import "testing"

// An application's help reaches the model as a command's output does:
// without escape sequences or invisible characters.
func TestCommandDescriptionsCarryNoEscapeOrInvisibleCharacter(t *testing.T) {
	desc, model := describeCommand([]string{"kv", "get"}, "\x1b[31mGet\x1b[0m a value\u200b", "Long \u202ehelp\U000e0041\x07", nil)
	if desc != "Get a value" || model != "Get a value\n\nLong \ufffdhelp" {
		t.Errorf("describeCommand = %q, %q", desc, model)
	}
}
