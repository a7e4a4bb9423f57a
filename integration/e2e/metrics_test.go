package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads GET /metrics and parses it with the Prometheus text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape of %s: %v", url, err)
	}
	return families
}

// value is the value of the counter or gauge name with labels (a subset
// of the series' labels), summed over the series that match; 0 when none.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f, ok := families[name]
	if !ok {
		return 0
	}
	sum := 0.0
	for _, m := range f.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == k && l.GetValue() == v {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// series names every series of a scrape, one per labelled sample.
func series(families map[string]*dto.MetricFamily) []string {
	var out []string
	for name, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out = append(out, name+"{"+strings.Join(labels, ",")+"}")
		}
	}
	sort.Strings(out)
	return out
}

// metricsURL is the /metrics address a server announced.
func metricsURL(t *testing.T, log *logBuffer) string {
	t.Helper()
	rec := log.waitRecord(t, "the metrics address", func(r map[string]any) bool {
		return r["msg"] == "serving metrics" || r["level"] == "ERROR"
	})
	url, _ := rec["url"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("metrics announced at %q: %v", url, rec)
	}
	return url
}

// TestMetricsCountCallsApprovalsAndRefusalsWithBoundedSeries scrapes
// --metrics of the built binary: the counters move with calls, approvals
// and refused credentials, and a thousand calls with a thousand different
// argument values add no series.
func TestMetricsCountCallsApprovalsAndRefusalsWithBoundedSeries(t *testing.T) {
	var mu sync.Mutex
	approve := true
	c := client{protocol: legacyProtocol, elicit: func(_ context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}}, nil
	}}
	h := startHTTP(t, "metrics-test-token-0123456789", "--metrics", "127.0.0.1:0")
	url := metricsURL(t, h.log)
	cs := h.connect(t, c)

	call := func(name string, a map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("calling %s: %v", name, err)
		}
		return res
	}
	call("echo", args("subject", "first"))
	call("touch", args("path", filepath.Join(t.TempDir(), "approved")))
	mu.Lock()
	approve = false
	mu.Unlock()
	call("touch", args("path", filepath.Join(t.TempDir(), "declined")))
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool_" + t.Name()}); err == nil {
		t.Fatal("a call of an unknown tool succeeded")
	}
	// Refused credentials: none, and a wrong one.
	h.post(t, initialize, nil)
	h.post(t, initialize, map[string]string{"Authorization": "Bearer wrong-token-0123456789"})

	before := scrape(t, url)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"fisk_mcp_tool_calls_total", map[string]string{"gen_ai_tool_name": "echo", "fisk_mcp_outcome": "ok", "fisk_mcp_kind": "application"}, 1},
		{"fisk_mcp_tool_calls_total", map[string]string{"gen_ai_tool_name": "touch", "fisk_mcp_outcome": "ok"}, 1},
		{"fisk_mcp_tool_calls_total", map[string]string{"gen_ai_tool_name": "touch", "fisk_mcp_outcome": "refused"}, 1},
		{"fisk_mcp_tool_calls_total", map[string]string{"gen_ai_tool_name": "_OTHER", "fisk_mcp_outcome": "unknown_tool"}, 1},
		{"fisk_mcp_approvals_total", map[string]string{"fisk_mcp_decision": "approved", "fisk_mcp_route": "elicitation"}, 1},
		{"fisk_mcp_approvals_total", map[string]string{"fisk_mcp_decision": "declined", "fisk_mcp_route": "elicitation"}, 1},
		{"fisk_mcp_approval_duration_seconds", map[string]string{"fisk_mcp_decision": "approved"}, 1},
		{"fisk_mcp_auth_refusals_total", map[string]string{"fisk_mcp_reason": "missing"}, 1},
		{"fisk_mcp_auth_refusals_total", map[string]string{"fisk_mcp_reason": "invalid"}, 1},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "network_transport": "tcp"}, 4},
		{"mcp_server_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "error_type": "tool_error"}, 1},
		{"fisk_mcp_approvals_pending", nil, 0},
		{"fisk_mcp_commands_running", nil, 0},
		{"fisk_mcp_introspection_duration_seconds", map[string]string{"fisk_mcp_outcome": "ok"}, 1},
	}
	for _, c := range checks {
		if got := value(before, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if _, ok := before["fisk_mcp_approvals_pending"]; !ok {
		t.Error("fisk_mcp_approvals_pending is not exported")
	}
	if got := value(before, "fisk_mcp_tools_served", nil); got < 5 {
		t.Errorf("fisk_mcp_tools_served = %v, want the fixture's tools", got)
	}
	if got := value(before, "fisk_mcp_tool_output_bytes_total", map[string]string{"gen_ai_tool_name": "echo"}); got <= 0 {
		t.Errorf("echo's output bytes = %v, want more than 0", got)
	}

	const calls = 1000
	for i := range calls {
		call("echo", args("subject", fmt.Sprintf("subject-%d-%x", i, i*7919)))
	}
	after := scrape(t, url)
	if got := value(after, "fisk_mcp_tool_calls_total", map[string]string{"gen_ai_tool_name": "echo", "fisk_mcp_outcome": "ok"}); got != calls+1 {
		t.Errorf("echo calls = %v, want %d", got, calls+1)
	}
	b, a := series(before), series(after)
	if len(a) != len(b) {
		t.Errorf("%d calls with as many argument values changed the series count from %d to %d:\nbefore %v\nafter %v", calls, len(b), len(a), b, a)
	}
	t.Logf("series exported for the fixture app: %d", len(a))
	for _, s := range a {
		if strings.Contains(s, "subject-") {
			t.Errorf("an argument value is a label: %s", s)
		}
	}
	// A session that ends is timed.
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the session's duration", func() bool {
		return value(scrape(t, url), "mcp_server_session_duration_seconds", map[string]string{"network_transport": "tcp"}) == 1
	})
}

// TestMetricsOnATakenPortIsAWarningNotAFailedStart starts a second server
// on the --metrics address of the first: it serves, and warns.
func TestMetricsOnATakenPortIsAWarningNotAFailedStart(t *testing.T) {
	first := startHTTP(t, "", "--metrics", "127.0.0.1:0")
	url := metricsURL(t, first.log)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics")
	second := startHTTP(t, "", "--metrics", addr)
	second.log.waitRecord(t, "the warning of a taken metrics port", func(r map[string]any) bool {
		return r["level"] == "WARN" && strings.Contains(fmt.Sprint(r["msg"]), "metrics not served")
	})
	second.connect(t, client{protocol: legacyProtocol})
}

// TestMetricsOnANonLoopbackAddressNeedsAToken refuses to start a server
// whose --metrics address is reachable from elsewhere without a token.
func TestMetricsOnANonLoopbackAddressNeedsAToken(t *testing.T) {
	_, stderr, code := runFiskMCP(t, nil, serveArgs("--metrics", "0.0.0.0:0", fixtureBin)...)
	if code == 0 || !strings.Contains(stderr, "not a loopback address and no token is set") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}
