// Command fisk-demo is a small operations CLI built with fisk, shipped so
// that fisk-mcp has something real to serve: it keeps an inventory of
// services in a state directory and every command reads or changes that
// inventory. Its tags show each way fisk-mcp reads them: ai:* behaviour
// tags, the application's own impact:ro / impact:rw tags for an operator to
// map, ai:confirm on the one destructive command and ai:deny on the command
// no model may ever run.
//
//	make build && bin/fisk-demo service add web --port 8080
//	bin/fisk-mcp serve --read-only-tag impact:ro bin/fisk-demo
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/choria-io/fisk"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "development"

// stateDirEnv overrides the default state directory, so an operator can point
// a served fisk-demo at a directory without exposing the flag to a model.
const stateDirEnv = "FISK_DEMO_STATE_DIR"

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// demo holds the parse targets of one run.
type demo struct {
	stateDir string
	format   string

	name   string
	port   uint16
	owner  string
	status string
	yes    bool
}

func main() {
	d := &demo{}
	app := fisk.New("fisk-demo", `Manage a small inventory of services.

fisk-demo keeps services, their ports, owners and state in a JSON file in the
state directory. It exists to show fisk-mcp serving a real CLI: changes made
through an MCP client can be checked from a shell with "fisk-demo service ls".`)
	app.Version(version)
	app.Flag("state-dir", "Directory holding the service inventory").Envar(stateDirEnv).Default(defaultStateDir()).PlaceHolder("DIR").StringVar(&d.stateDir)
	app.Flag("format", "Output format").Default("text").EnumVar(&d.format, "text", "json")

	svc := app.Command("service", "Inspect and change services").Alias("svc")

	ls := svc.Command("ls", "List services").Alias("list").Action(d.list)
	ls.HelpLong("Lists every service with its port, owner, state and restart count, sorted by name.")
	ls.Flag("owner", "Only services owned by this team").StringVar(&d.owner)
	ls.Flag("status", "Only services in this state").EnumVar(&d.status, "running", "stopped")
	ls.Tag("ai:read_only", "ai:idempotent", "ai:closed_world", "impact:ro")

	info := svc.Command("info", "Show one service").Alias("show").Action(d.info)
	info.HelpLong("Shows every recorded detail of one service, including when it was created and last restarted.")
	info.Arg("name", "Service name").Required().StringVar(&d.name)
	info.Tag("ai:read_only", "ai:idempotent", "ai:closed_world", "impact:ro")

	add := svc.Command("add", "Register a new service").Alias("create").Action(d.add)
	add.HelpLong(`Registers a service in the stopped state. Names are lower case letters,
digits and dashes (at most 63 characters); a name or port already in use is
refused, so adding never overwrites an existing service.`)
	add.Arg("name", "Service name").Required().StringVar(&d.name)
	add.Flag("port", "TCP port the service listens on").Required().Uint16Var(&d.port)
	add.Flag("owner", "Team that owns the service").Default("platform").StringVar(&d.owner)
	add.Tag("ai:additive", "ai:closed_world", "impact:rw")

	restart := svc.Command("restart", "Restart a service, leaving it running").Action(d.restart)
	restart.HelpLong(`Restarts a service. Whatever state it was in, it ends up running, so repeating
the command leaves the same outcome (the restart counter still counts each one).`)
	restart.Arg("name", "Service name").Required().StringVar(&d.name)
	restart.Tag("ai:idempotent", "ai:closed_world", "impact:rw")

	rm := svc.Command("rm", "Remove a service from the inventory").Alias("delete").Action(d.remove)
	rm.HelpLong("Removes a service and its history for good. There is no undo, so it needs a person's approval when served by fisk-mcp.")
	rm.Arg("name", "Service name").Required().StringVar(&d.name)
	rm.Tag("ai:destructive", "ai:confirm", "ai:closed_world", "impact:rw")

	maint := app.Command("maintenance", "Maintenance of the inventory itself")
	purge := maint.Command("purge-all", "Remove every service").Action(d.purgeAll)
	purge.HelpLong("Empties the inventory. Meant for people at a terminal only: it is tagged ai:deny, so fisk-mcp never offers or runs it.")
	purge.Flag("yes", "Confirm that every service should be removed").UnNegatableBoolVar(&d.yes)
	purge.Tag("ai:deny", "ai:destructive", "impact:rw")

	app.MustParseWithUsage(os.Args[1:])
}

// defaultStateDir prefers $XDG_STATE_HOME/fisk-demo and falls back to a
// directory under the system's temporary directory: a demo should work
// without setup and leave nothing in the user's home by default.
func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "fisk-demo")
	}
	return filepath.Join(os.TempDir(), "fisk-demo")
}

func (d *demo) list(*fisk.ParseContext) error {
	inv, err := readInventory(d.stateDir)
	if err != nil {
		return err
	}
	var out []*Service
	for _, s := range inv.sorted() {
		if (d.owner == "" || s.Owner == d.owner) && (d.status == "" || s.Status == d.status) {
			out = append(out, s)
		}
	}
	return d.print(out)
}

func (d *demo) info(*fisk.ParseContext) error {
	inv, err := readInventory(d.stateDir)
	if err != nil {
		return err
	}
	s, err := inv.find(d.name)
	if err != nil {
		return err
	}
	return d.print(s)
}

func (d *demo) add(*fisk.ParseContext) error {
	if !namePattern.MatchString(d.name) {
		return fmt.Errorf("invalid service name %q: use lower case letters, digits and dashes, starting with a letter", d.name)
	}
	if d.port == 0 {
		return fmt.Errorf("invalid port 0: give a port between 1 and 65535")
	}
	return d.change(func(inv *inventory) (any, error) {
		if _, ok := inv.Services[d.name]; ok {
			return nil, fmt.Errorf("service %q already exists: choose another name or remove it first", d.name)
		}
		for _, s := range inv.Services {
			if s.Port == d.port {
				return nil, fmt.Errorf("port %d is already used by service %q", d.port, s.Name)
			}
		}
		s := &Service{Name: d.name, Port: d.port, Owner: d.owner, Status: "stopped", Created: now()}
		inv.Services[d.name] = s
		return s, nil
	})
}

func (d *demo) restart(*fisk.ParseContext) error {
	return d.change(func(inv *inventory) (any, error) {
		s, err := inv.find(d.name)
		if err != nil {
			return nil, err
		}
		t := now()
		s.Status, s.Restarts, s.Restarted = "running", s.Restarts+1, &t
		return s, nil
	})
}

func (d *demo) remove(*fisk.ParseContext) error {
	return d.change(func(inv *inventory) (any, error) {
		s, err := inv.find(d.name)
		if err != nil {
			return nil, err
		}
		delete(inv.Services, d.name)
		return map[string]string{"removed": s.Name}, nil
	})
}

func (d *demo) purgeAll(*fisk.ParseContext) error {
	if !d.yes {
		return fmt.Errorf("refusing to remove every service without --yes")
	}
	return d.change(func(inv *inventory) (any, error) {
		n := len(inv.Services)
		inv.Services = map[string]*Service{}
		return map[string]int{"removed": n}, nil
	})
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }
