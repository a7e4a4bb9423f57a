package server

import (
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stallingTool is a tool whose descriptor, once armed, is not built until
// the test releases it: it holds a Publish in the middle of registering.
type stallingTool struct {
	bareTool
	armed, reached, release chan struct{}
	once                    *sync.Once
}

func newStallingTool() stallingTool {
	return stallingTool{armed: make(chan struct{}), reached: make(chan struct{}), release: make(chan struct{}), once: &sync.Once{}}
}

func (stallingTool) Name() string { return "stalling" }

func (s stallingTool) ModelDescription() string {
	select {
	case <-s.armed:
		s.once.Do(func() { close(s.reached) })
		<-s.release
	default:
	}
	return "A tool whose descriptor takes its time"
}

// Tools/list answers for the set in force: a Publish still registering a
// new set must not leave the old list standing for a set that withdrew
// its tools (a tool denied by a reload would go on being listed).
func TestListDuringAPublishIsTheListOfTheSetInForce(t *testing.T) {
	s, _ := newServer(t, Config{}, customSet(t, echoTool(t)))
	cs := connect(t, s, legacyVersion, nil)
	stall := newStallingTool()
	next := customSet(t, stall)
	close(stall.armed)
	published := background(func() error { s.Publish(next); return nil })
	wait(t, stall.reached, "the publish to reach the stalling descriptor")

	select {
	case <-published:
		t.Fatal("the publish finished while its descriptor stalled")
	default:
	}
	listed := background(func() error {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			return err
		}
		inForce := s.Tools()
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		var want []string
		for _, tool := range inForce.Tools() {
			want = append(want, tool.Name())
		}
		if !slices.Equal(names, want) {
			t.Errorf("listed %v while the set in force serves %v", names, want)
		}
		return nil
	})
	err := wait(t, listed, "the list while the publish stalls")
	close(stall.release)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, published, "the publish")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo_json"}); err == nil {
		t.Error("the withdrawn tool is still callable")
	}
}
