package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// signer is who signs in at a Hydra's login page: the subject of the
// tokens it then issues, and the claims put in them.
type signer struct {
	Subject string
	Email   string
	Groups  []string
}

// loginProvider is the login and consent app a Hydra sends people to, as
// every Hydra needs one. It asks nothing: it signs in whoever the test
// said is at the browser and grants what the client asked for, including
// the RFC 8707 resource as the access token's audience, which Hydra
// v2.3.0 does not do on its own.
type loginProvider struct {
	issuer, admin string // Hydra's public and admin URLs
	srv           *httptest.Server

	mu  sync.Mutex
	who signer
}

func newLoginProvider(t *testing.T, issuer, admin string) *loginProvider {
	p := &loginProvider{issuer: issuer, admin: admin}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", p.login)
	mux.HandleFunc("GET /consent", p.consent)
	mux.HandleFunc("POST /register", p.register)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// signInAs makes who the person at the browser for the sign-ins that follow.
func (p *loginProvider) signInAs(who signer) {
	p.mu.Lock()
	p.who = who
	p.mu.Unlock()
}

func (p *loginProvider) person() signer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.who
}

func (p *loginProvider) login(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("login_challenge")
	who := p.person()
	if who.Subject == "" {
		http.Error(w, "no one is at the browser: call signInAs first", http.StatusForbidden)
		return
	}
	p.accept(w, r, "login", challenge, map[string]any{"subject": who.Subject})
}

func (p *loginProvider) consent(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("consent_challenge")
	var req struct {
		Scopes    []string `json:"requested_scope"`
		Audiences []string `json:"requested_access_token_audience"`
		URL       string   `json:"request_url"`
	}
	if err := p.admin_(r, http.MethodGet, "consent?consent_challenge="+url.QueryEscape(challenge), nil, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	audiences := req.Audiences
	if u, err := url.Parse(req.URL); err == nil {
		audiences = append(audiences, u.Query()["resource"]...)
	}
	who := p.person()
	claims := map[string]any{"groups": who.Groups}
	if who.Email != "" {
		claims["email"] = who.Email
	}
	p.accept(w, r, "consent", challenge, map[string]any{
		"grant_scope":                 req.Scopes,
		"grant_access_token_audience": audiences,
		"session":                     map[string]any{"access_token": claims, "id_token": claims},
	})
}

// register passes a client's registration (RFC 7591) on to Hydra and
// its answer back without the fields Hydra v2.3.0 writes as null or ""
// when the client did not set them (contacts, client_uri, ...): the
// TypeScript SDK and mcp-remote refuse such an answer. Hydra v25.4.0
// omits them itself.
func (p *loginProvider) register(w http.ResponseWriter, r *http.Request) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.issuer+"oauth2/register", http.MaxBytesReader(w, r.Body, 1<<16))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var client map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&client); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range client {
		if v == nil || v == "" {
			delete(client, k)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	json.NewEncoder(w).Encode(client)
}

// accept accepts a login or consent challenge and sends the browser on.
func (p *loginProvider) accept(w http.ResponseWriter, r *http.Request, kind, challenge string, body any) {
	var out struct {
		RedirectTo string `json:"redirect_to"`
	}
	if err := p.admin_(r, http.MethodPut, kind+"/accept?"+kind+"_challenge="+url.QueryEscape(challenge), body, &out); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, out.RedirectTo, http.StatusFound)
}

func (p *loginProvider) admin_(r *http.Request, method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(r.Context(), method, p.admin+"/admin/oauth2/auth/requests/"+path, strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s %s: status %d: %s", method, req.URL.Path, resp.StatusCode, msg)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// publicClient registers a public client (no secret, PKCE) that may use
// the authorization code grant with redirect for the audiences with scope.
func (h *hydra) publicClient(t *testing.T, redirect, scope string, audiences ...string) string {
	t.Helper()
	var out struct {
		ID string `json:"client_id"`
	}
	h.adminJSON(t, http.MethodPost, "/admin/clients", map[string]any{
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"redirect_uris": []string{redirect}, "audience": audiences, "scope": scope,
		"token_endpoint_auth_method": "none",
	}, &out)
	return out.ID
}
