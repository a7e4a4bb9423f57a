package exposure

import (
	"testing"

	"github.com/choria-io/fisk"
)

// An application's help reaches the model as a command's output does:
// without escape sequences or invisible characters.
func TestCommandDescriptionsCarryNoEscapeOrInvisibleCharacter(t *testing.T) {
	desc, model := describeCommand([]string{"kv", "get"}, "\x1b[31mGet\x1b[0m a value\u200b", "Long \u202ehelp\U000e0041\x07", nil)
	if desc != "Get a value" || model != "Get a value\n\nLong \ufffdhelp" {
		t.Errorf("describeCommand = %q, %q", desc, model)
	}
}

func TestGroupHelpCarriesNoEscapeOrInvisibleCharacter(t *testing.T) {
	leaf := &fisk.CmdModel{Name: "get"}
	kv := &fisk.CmdModel{Name: "kv", Help: "\x1b]0;title\x07Key\u200b-value \u202estores", CmdGroupModel: &fisk.CmdGroupModel{Commands: []*fisk.CmdModel{leaf}}}
	m := &fisk.ApplicationModel{CmdGroupModel: &fisk.CmdGroupModel{Commands: []*fisk.CmdModel{kv}}}
	if got := groupHelp(m, []string{"kv", "get"}); len(got) != 1 || got[0] != "Key-value \ufffdstores" {
		t.Errorf("groupHelp = %q", got)
	}
}
