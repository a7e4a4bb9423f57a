package bundle

import (
	"slices"
	"strings"
	"unicode"

	"github.com/choria-io/fisk"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Variable is an environment variable an app reads for one of its
// application-level flags (fisk's Envar): the bundle asks the person for
// it, as the user_config entry of the same name, and starts the server
// with it in its environment. fisk-mcp keeps a variable an app declares in
// that app's commands' environment, however secret its name looks, and
// redacts its value from their output.
type Variable struct {
	Name string // the variable, and the user_config key
	// App and Flag name the app and the flag it sets, for the person.
	App, Flag string
	Help      string
	Type      string // string, boolean, file or directory
	Sensitive bool   // masked when typed and stored securely
	// Default is the flag's default as the app declared it here, "" for
	// a sensitive flag. It is shown, not preset: an app may compute it
	// from the machine it runs on (a directory under $HOME).
	Default string
}

// Variables lists the variables the app of model (named app) declares for
// its visible application-level flags, in declaration order. A flag whose
// placeholder says it takes a file (FILE, PATH, ...FILE) or a directory
// (DIR, DIRECTORY) is a file or directory picker; one that carries a
// secret by exposure.IsSecretFlag, by its name or its variable's (with the
// operator's secretFlags), is sensitive and its default is not shown.
func Variables(app string, model *fisk.ApplicationModel, secretFlags []string) []Variable {
	if model == nil || model.FlagGroupModel == nil {
		return nil
	}
	var out []Variable
	for _, f := range model.Flags {
		if f == nil || f.Envar == "" || f.Hidden || framework(f.Name) {
			continue
		}
		v := Variable{Name: f.Envar, App: app, Flag: f.Name, Help: strings.TrimSpace(f.Help), Type: "string"}
		switch place := strings.ToUpper(f.PlaceHolder); {
		case f.Boolean && !f.Cumulative:
			v.Type = "boolean"
		case place == "FILE" || place == "PATH" || strings.HasSuffix(place, "FILE"):
			v.Type = "file"
		case place == "DIR" || place == "DIRECTORY" || strings.HasSuffix(place, "_DIR"):
			v.Type = "directory"
		case exposure.IsSecretFlag(f.Name, secretFlags) || exposure.IsSecretFlag(f.Envar, secretFlags):
			v.Sensitive = true
		}
		if !v.Sensitive {
			v.Default = strings.Join(f.Default, ", ")
		}
		out = append(out, v)
	}
	return out
}

// framework names the flags fisk adds to every application, which no
// person sets for a server.
func framework(name string) bool {
	return name == "help" || name == "version" || strings.HasPrefix(name, "help-") ||
		strings.HasPrefix(name, "completion-") || strings.HasPrefix(name, "fisk-")
}

// Merge joins the variables of several apps: a variable two apps declare
// is asked for once (the environment is one for the whole server), under
// the first app's description, and, as a string, sensitive when either
// says so.
func Merge(lists ...[]Variable) []Variable {
	var out []Variable
	for _, list := range lists {
		for _, v := range list {
			i := slices.IndexFunc(out, func(o Variable) bool { return o.Name == v.Name })
			if i < 0 {
				out = append(out, v)
				continue
			}
			if v.Sensitive && out[i].Type == "string" {
				out[i].Sensitive, out[i].Default = true, ""
			}
		}
	}
	return out
}

// envOf wires each variable to its user_config entry.
func envOf(vars []Variable) map[string]string {
	if len(vars) == 0 {
		return nil
	}
	env := make(map[string]string, len(vars))
	for _, v := range vars {
		env[v.Name] = "${user_config." + v.Name + "}"
	}
	return env
}

// userConfigOf describes each variable for Claude Desktop's settings. None
// is required: an app's flag has its own default or is given per call, and
// Claude Desktop would not start a bundle whose required entry is empty.
// Every entry has a default: Claude Desktop leaves "${user_config.KEY}"
// as written when an entry has no value, and an app reading that literally
// would act on it. It is the empty string, which fisk reads as not set, so
// the app applies its own default where it runs; a boolean is a checkbox,
// preset as the app's default.
func userConfigOf(vars []Variable) map[string]UserConfig {
	if len(vars) == 0 {
		return nil
	}
	out := make(map[string]UserConfig, len(vars))
	for _, v := range vars {
		help := v.Help
		if help == "" {
			help = "The --" + v.Flag + " flag"
		}
		var def any = ""
		note := ""
		switch {
		case v.Type == "boolean":
			def = v.Default == "true"
		case v.Default != "":
			note = "; empty for the app's default, " + v.Default
		}
		out[v.Name] = UserConfig{
			Type:        v.Type,
			Title:       title(v.Flag),
			Description: strings.TrimSuffix(help, ".") + " (" + v.App + " --" + v.Flag + ", set as " + v.Name + note + ")",
			Sensitive:   v.Sensitive,
			Default:     def,
		}
	}
	return out
}

// title turns a flag's name into a label: "socks-proxy" is "Socks proxy".
func title(flag string) string {
	words := strings.FieldsFunc(flag, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(words) == 0 {
		return flag
	}
	r := []rune(words[0])
	r[0] = unicode.ToUpper(r[0])
	words[0] = string(r)
	return strings.Join(words, " ")
}
