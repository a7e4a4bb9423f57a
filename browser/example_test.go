package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/fisk-mcp/fisk-mcp/browser"
)

// The shared page is mounted beside the MCP endpoint, outside its bearer
// token check: it has its own sign-in with the approver token.
func ExampleShared_Handler() {
	s, err := browser.NewShared(browser.SharedOptions{
		Token: []byte("approver-token-from-its-own-file"),
		Store: browser.NewMemoryStore(), // with replicas: a shared Store
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/approvals", s.Handler())
	mux.Handle("/approvals/", s.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/approvals") // not signed in: the sign-in form
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("X-Frame-Options"))
	// Output: 200 DENY
}
