package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Service is one inventory entry.
type Service struct {
	Name      string     `json:"name"`
	Port      uint16     `json:"port"`
	Owner     string     `json:"owner"`
	Status    string     `json:"status"`
	Restarts  int        `json:"restarts"`
	Created   time.Time  `json:"created"`
	Restarted *time.Time `json:"restarted,omitempty"`
}

// inventory is the content of services.json.
type inventory struct {
	Services map[string]*Service `json:"services"`
}

const inventoryFile = "services.json"

// readInventory reads the inventory; a missing file is an empty inventory,
// so a fresh state directory needs no setup.
func readInventory(dir string) (*inventory, error) {
	inv := &inventory{Services: map[string]*Service{}}
	b, err := os.ReadFile(filepath.Join(dir, inventoryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return inv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the inventory: %w", err)
	}
	if err := json.Unmarshal(b, inv); err != nil {
		return nil, fmt.Errorf("%s is not a valid inventory (%v): fix or remove it", filepath.Join(dir, inventoryFile), err)
	}
	if inv.Services == nil {
		inv.Services = map[string]*Service{}
	}
	return inv, nil
}

// write replaces the inventory atomically (temporary file and rename), so a
// reader never sees half a file.
func (inv *inventory) write(dir string) error {
	b, err := json.MarshalIndent(inv, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, inventoryFile+".*")
	if err != nil {
		return fmt.Errorf("writing the inventory: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the inventory: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the inventory: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, inventoryFile))
}

func (inv *inventory) find(name string) (*Service, error) {
	if s, ok := inv.Services[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no service named %q: list them with \"service ls\"", name)
}

func (inv *inventory) sorted() []*Service {
	out := make([]*Service, 0, len(inv.Services))
	for _, s := range inv.Services {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Service) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// change runs one read-modify-write of the inventory under an exclusive lock,
// so concurrent invocations (an MCP server runs several at once) never lose
// an update, then prints what mutate returned.
func (d *demo) change(mutate func(*inventory) (any, error)) error {
	if err := os.MkdirAll(d.stateDir, 0o750); err != nil {
		return fmt.Errorf("creating the state directory: %w", err)
	}
	unlock, err := lockDir(d.stateDir)
	if err != nil {
		return err
	}
	defer unlock()
	inv, err := readInventory(d.stateDir)
	if err != nil {
		return err
	}
	result, err := mutate(inv)
	if err != nil {
		return err
	}
	if err := inv.write(d.stateDir); err != nil {
		return err
	}
	return d.print(result)
}

// print writes v as indented JSON with --format json, or as text.
func (d *demo) print(v any) error {
	if d.format == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	switch v := v.(type) {
	case []*Service:
		if len(v) == 0 {
			fmt.Println("No services")
			return nil
		}
		fmt.Fprintln(w, "NAME\tPORT\tOWNER\tSTATUS\tRESTARTS")
		for _, s := range v {
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%d\n", s.Name, s.Port, s.Owner, s.Status, s.Restarts)
		}
	case *Service:
		fmt.Fprintf(w, "Name:\t%s\nPort:\t%d\nOwner:\t%s\nStatus:\t%s\nRestarts:\t%d\nCreated:\t%s\n",
			v.Name, v.Port, v.Owner, v.Status, v.Restarts, v.Created.Format(time.RFC3339))
		if v.Restarted != nil {
			fmt.Fprintf(w, "Restarted:\t%s\n", v.Restarted.Format(time.RFC3339))
		}
	case map[string]string:
		fmt.Fprintf(w, "Removed service %s\n", v["removed"])
	case map[string]int:
		fmt.Fprintf(w, "Removed %d services\n", v["removed"])
	}
	return w.Flush()
}
