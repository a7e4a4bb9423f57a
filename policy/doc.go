// Package policy decides, per caller, which tools a caller may list and
// call, from a policy file written in Cedar (https://www.cedarpolicy.com),
// the policy language AWS Verified Permissions and ToolHive use for
// exactly this: default deny (nothing is allowed unless a permit says so,
// and a forbid wins), and a language meant to be analysed, so that a
// policy is validated against the published schema (schema.cedarschema)
// before it is ever used.
//
// The entities are fixed:
//
//   - the caller, Caller::"<issuer>#<subject>" for an OAuth user, with the
//     attributes kind ("user"), email and preferred_username (each only
//     when the token carries that claim) and its groups as parents,
//     Group::"<name>"; Caller::"static" (kind "static") for a caller
//     admitted by the shared bearer token, and Caller::"local" (kind
//     "local") for one over stdio or on loopback without a token, never
//     confused with a user, whose identifier always holds a "#";
//   - the tool, Tool::"<name>", with application, tags, read_only,
//     destructive and gated;
//   - the actions Action::"list", Action::"call" and Action::"approve";
//     approve is asked when a person signed in on the shared approvals
//     page decides a gated call, with the person as principal and the
//     call's caller as context.caller ([Policy.Approves]), so that a
//     policy can say "nobody approves their own call".
//
// The claims read are a named set ([Claims]): email, preferred_username
// and groups by default, each name configurable for a provider that
// calls them otherwise. A claim the token lacks is an attribute the
// caller lacks; a policy that needs it does not apply, so it denies.
//
// No request context (address, time) is given, beyond approve's caller:
// what a caller may list
// depends on its rights alone, so its list varies by authorization and
// never by connection.
//
// The validator is cedar-go's x/exp/schema/validate, an experimental
// package of the pinned cedar-go version; a policy it refuses is named by
// its @id annotation (or its position) and file line.
package policy
