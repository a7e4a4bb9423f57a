package server

import (
	"github.com/fisk-mcp/fisk-mcp/identity"
)

// approvalsSignIn is an approvals page (HTTPConfig.Approvals) that signs
// people in with the authorization server that admits the clients (see
// package browser's SignIn): it is given the server's protected resource,
// whose checks its tokens pass, and the server's rule of who approves.
type approvalsSignIn interface {
	SignInWith(res *identity.Resource, may func(approver *identity.Caller, callerID, tool string) bool) error
}

// mayApprove reports whether approver, signed in on the approvals page,
// may approve the call of tool made by callerID: the policy's approve
// action when a policy is in force (which says whether one's own call
// may be approved); without one, anyone signed in may approve any call
// of a known caller but their own (four eyes by default: the page is for
// someone other than the caller). A tool no longer served is approved by
// no one.
func (s *Server) mayApprove(approver *identity.Caller, callerID, tool string) bool {
	p := s.cfg.Policy.Load()
	if p == nil {
		return callerID != "" && approver.UserID() != callerID
	}
	t, ok := s.tools.Load().Lookup(tool)
	if !ok {
		return false
	}
	return p.Approves(p.User(approver.UserID(), approver.Claims), callerID, t)
}
