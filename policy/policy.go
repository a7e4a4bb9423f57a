package policy

import (
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/cedar-policy/cedar-go"
	"github.com/cedar-policy/cedar-go/types"
	xast "github.com/cedar-policy/cedar-go/x/exp/ast"
	"github.com/cedar-policy/cedar-go/x/exp/schema"
	"github.com/cedar-policy/cedar-go/x/exp/schema/validate"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Schema is the Cedar schema every policy is validated against.
//
//go:embed schema.cedarschema
var Schema string

// Action is what a caller asks to do with a tool.
type Action string

const (
	// List: see the tool (tools/list, search_tools, describe_tools, "did
	// you mean").
	List Action = "list"
	// Call: run the tool, directly or through an executor.
	Call Action = "call"
	// Approve: approve another's gated call of the tool on the shared
	// approvals page; decided by [Policy.Approves], which gives the call's
	// caller.
	Approve Action = "approve"
)

var actions = map[Action]types.EntityUID{
	List:    types.NewEntityUID("Action", "list"),
	Call:    types.NewEntityUID("Action", "call"),
	Approve: types.NewEntityUID("Action", "approve"),
}

// Policy is a validated policy set and the claim names its callers are
// built with. It is immutable; a reload makes another.
type Policy struct {
	file   string
	set    *cedar.PolicySet
	claims Claims
}

// validator is the schema's validator, built once.
var validator = func() *validate.Validator {
	var s schema.Schema
	if err := s.UnmarshalCedar([]byte(Schema)); err != nil {
		panic("policy: the built-in schema does not parse: " + err.Error())
	}
	r, err := s.Resolve()
	if err != nil {
		panic("policy: the built-in schema does not resolve: " + err.Error())
	}
	return validate.New(r)
}()

// Load reads, parses and validates the policy file at path.
func Load(path string, claims Claims) (*Policy, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return Parse(path, src, claims)
}

// Parse parses and validates src, a policy file named file, against
// Schema. An error names the file and the first policy that fails, by its
// @id annotation when it has one, and its line.
func Parse(file string, src []byte, claims Claims) (*Policy, error) {
	if err := claims.check(); err != nil {
		return nil, err
	}
	set, err := cedar.NewPolicySetFromBytes(file, src)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w; see docs/teams.md for examples", file, err)
	}
	n := 0
	for id, p := range set.All() {
		n++
		if err := validator.Policy(string(id), (*xast.Policy)(p.AST())); err != nil {
			return nil, fmt.Errorf("policy %s: %s does not fit the schema (policy/schema.cedarschema): %w", file, name(id, p), err)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("policy %s: no policy in it, so every tool would be denied to everyone; add a permit (docs/teams.md has examples)", file)
	}
	return &Policy{file: file, set: set, claims: claims.withDefaults()}, nil
}

// name is how an error names a policy: its @id and line.
func name(id cedar.PolicyID, p *cedar.Policy) string {
	pos := p.Position()
	if a, ok := p.Annotations()["id"]; ok {
		return fmt.Sprintf("policy %q (line %d)", string(a), pos.Line)
	}
	return fmt.Sprintf("the policy at line %d (%s)", pos.Line, id)
}

// File is the file the policy was read from.
func (p *Policy) File() string { return p.file }

// Claims are the claim names the policy's callers are built with.
func (p *Policy) Claims() Claims { return p.claims }

// Allowed reports whether caller may list or call tool (for Approve,
// which needs the call's caller, see Approves). Anything the
// policy does not permit is denied, and so is an unknown action, a nil
// caller and a policy that errs on this request (it needs an attribute
// the caller lacks).
func (p *Policy) Allowed(caller *Caller, action Action, tool exposure.Tool) bool {
	act, ok := actions[action]
	if p == nil || caller == nil || tool == nil || !ok || action == Approve {
		return false
	}
	t := cachedToolEntity(tool)
	req := cedar.Request{Principal: caller.entity.UID, Action: act, Resource: t.UID, Context: types.Record{}}
	d, _ := cedar.Authorize(p.set, pair{caller.entity, t}, req)
	return d == cedar.Allow
}

// Approves reports whether approver may approve, on the approvals page,
// a gated call of tool made by the caller whose ID is callerID
// (issuer#subject, StaticID or LocalID). The call's caller is the
// context's caller: a policy compares it with the principal ("nobody
// approves their own call"); of its attributes only kind is known,
// since the page holds the call, not the caller's token.
func (p *Policy) Approves(approver *Caller, callerID string, tool exposure.Tool) bool {
	if p == nil || approver == nil || tool == nil || callerID == "" {
		return false
	}
	kind := "user"
	if callerID == StaticID || callerID == LocalID {
		kind = callerID
	}
	caller := types.Entity{UID: types.NewEntityUID("Caller", types.String(callerID)),
		Attributes: types.NewRecord(types.RecordMap{"kind": types.String(kind)})}
	if caller.UID == approver.entity.UID {
		caller = approver.entity
	}
	t := cachedToolEntity(tool)
	req := cedar.Request{Principal: approver.entity.UID, Action: actions[Approve], Resource: t.UID,
		Context: types.NewRecord(types.RecordMap{"caller": caller.UID})}
	d, _ := cedar.Authorize(p.set, trio{approver.entity, t, caller}, req)
	return d == cedar.Allow
}

// pair is the entities of one request: the caller and the tool. A group
// needs no entity of its own: it is known as the caller's parent.
type pair [2]types.Entity

func (e pair) Get(uid types.EntityUID) (types.Entity, bool) {
	for _, x := range e {
		if x.UID == uid {
			return x, true
		}
	}
	return types.Entity{}, false
}

// trio is the entities of an approve request: the approver, the tool
// and the call's caller.
type trio [3]types.Entity

func (e trio) Get(uid types.EntityUID) (types.Entity, bool) {
	for _, x := range e {
		if x.UID == uid {
			return x, true
		}
	}
	return types.Entity{}, false
}

// maxCachedTools bounds the tool entities kept: a few sets of nats's
// size. Past it the cache is emptied and filled again; it keeps the tools
// of the sets a reload replaced alive until then.
const maxCachedTools = 1024

// toolCache holds each tool's entity, by the tool (tools are immutable),
// so that filtering a list builds no entity.
var toolCache struct {
	m sync.Map // exposure.Tool → types.Entity
	n atomic.Int64
}

// cachedToolEntity is toolEntity(t), built once per tool.
func cachedToolEntity(t exposure.Tool) types.Entity {
	if !reflect.TypeOf(t).Comparable() {
		return toolEntity(t)
	}
	if e, ok := toolCache.m.Load(t); ok {
		return e.(types.Entity)
	}
	e := toolEntity(t)
	if toolCache.n.Add(1) > maxCachedTools {
		toolCache.m.Clear()
		toolCache.n.Store(1)
	}
	toolCache.m.Store(t, e)
	return e
}

// toolEntity is t as Cedar sees it.
func toolEntity(t exposure.Tool) types.Entity {
	b := exposure.BehaviorOf(t)
	app := ""
	if a, ok := t.(exposure.Applied); ok {
		app = a.Application()
	}
	var tags []types.Value
	if s, ok := t.(exposure.Sourced); ok {
		for _, tag := range s.Tags() {
			tags = append(tags, types.String(tag))
		}
	}
	c, ok := t.(exposure.Confirmable)
	gated := !ok || c.NeedsConfirm()
	return types.Entity{
		UID: types.NewEntityUID("Tool", types.String(t.Name())),
		Attributes: types.NewRecord(types.RecordMap{
			"application": types.String(app),
			"tags":        types.NewSet(tags...),
			"read_only":   types.Boolean(b.ReadOnly),
			"destructive": types.Boolean(b.Destructive),
			"gated":       types.Boolean(gated),
		}),
	}
}

// Current holds the policy in force, swapped whole by a reload.
type Current struct{ p atomic.Pointer[Policy] }

// NewCurrent returns a Current holding p.
func NewCurrent(p *Policy) *Current {
	c := &Current{}
	c.p.Store(p)
	return c
}

// Load returns the policy in force; nil for a nil Current.
func (c *Current) Load() *Policy {
	if c == nil {
		return nil
	}
	return c.p.Load()
}

// Reload reads the file of the policy in force again and, when it is
// valid, puts it in force. A bad file changes nothing: the error says why,
// and the policy in force stays.
func (c *Current) Reload() error {
	old := c.Load()
	if old == nil {
		return errors.New("policy: no policy in force to reload")
	}
	p, err := Load(old.file, old.claims)
	if err != nil {
		return err
	}
	c.p.Store(p)
	return nil
}

// ReloadOnSignal is Reload for a reload the operator asked for (--watch,
// SIGHUP): it reports whether a new policy is in force, and logs the
// outcome to log; without a policy it does nothing.
func (c *Current) ReloadOnSignal(log *slog.Logger) bool {
	if c.Load() == nil {
		return false
	}
	if err := c.Reload(); err != nil {
		log.Error("policy reload failed; the policy in force stays", "err", err, "retry", "fix the policy (fisk-mcp policy check), then send SIGHUP")
		return false
	}
	log.Info("policy reloaded", "file", c.Load().File())
	return true
}
