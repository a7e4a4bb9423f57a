package natsstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fisk-mcp/fisk-mcp/elicit"
	"github.com/fisk-mcp/fisk-mcp/internal/testsupport/natstest"
	"github.com/fisk-mcp/fisk-mcp/natsconn"
)

// startServer runs a real JetStream server in this process; with, when
// given, adds to its options (users and permissions, say).
func startServer(t testing.TB, with ...func(*server.Options)) string {
	t.Helper()
	return natstest.Start(t, with...).URL()
}

func open(t testing.TB, c Config) *Store {
	t.Helper()
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func used(nonce string) elicit.UsedState {
	now := time.Now()
	return elicit.UsedState{Nonce: nonce, Issued: now, Expires: now.Add(2 * time.Minute), Now: now}
}

func bucket(t *testing.T, url, name string) (jetstream.JetStream, jetstream.KeyValue) {
	t.Helper()
	js := natstest.Client(t, url)
	kv, err := js.KeyValue(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return js, kv
}

func TestOpenCreatesAFileBucketAndUseIsCreateIfAbsentWithTheStatesLifetime(t *testing.T) {
	url := startServer(t)
	s := open(t, Config{Config: natsconn.Config{URL: url}})
	u := used(strings.Repeat("ab", 16))
	if fresh, err := s.Use(t.Context(), u); !fresh || err != nil {
		t.Fatalf("first use: %v %v", fresh, err)
	}
	if fresh, err := s.Use(t.Context(), u); fresh || err != nil {
		t.Fatalf("second use: %v %v, want not fresh", fresh, err)
	}
	js, kv := bucket(t, url, DefaultBucket)
	st, err := kv.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	info := st.(*jetstream.KeyValueBucketStatus).StreamInfo()
	if info.Config.Storage != jetstream.FileStorage || st.LimitMarkerTTL() <= 0 {
		t.Errorf("bucket storage %v, marker TTL %s: want file storage with per-key TTLs", info.Config.Storage, st.LimitMarkerTTL())
	}
	stream, err := js.Stream(t.Context(), "KV_"+DefaultBucket)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := stream.GetLastMsgForSubject(t.Context(), "$KV."+DefaultBucket+"."+u.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	want := u.Expires.Sub(u.Now) + DefaultSkew
	if got := msg.Header.Get("Nats-TTL"); got != want.String() && got != strconv.Itoa(int(want.Seconds())) {
		t.Errorf("the key's TTL is %q, want the state's lifetime plus the skew, %s", got, want)
	}
}

func TestAnExistingBucketWithoutPerKeyTTLFailsAtOpen(t *testing.T) {
	url := startServer(t)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: "plain"}); err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), Config{Config: natsconn.Config{URL: url}, Bucket: "plain"})
	if err == nil || !strings.Contains(err.Error(), "does not allow per-key TTLs") {
		t.Fatalf("Open on a bucket without TTLs: %v", err)
	}
}

func TestAnUnreachableServerAtOpenRefusesUsesUntilItIsThere(t *testing.T) {
	url := natstest.Unreachable(t)
	s := open(t, Config{Config: natsconn.Config{URL: url}})
	if _, err := s.Use(t.Context(), used(strings.Repeat("cd", 16))); !errors.Is(err, natsconn.ErrUnavailable) || !strings.Contains(err.Error(), url) {
		t.Fatalf("use without a server: %v, want ErrUnavailable naming the store", err)
	}
}

// The store is configured by its flags and files only, never by the NATS
// environment variables that a NATS CLI served as a tool would read.
func TestTheEnvironmentDoesNotConfigureTheStore(t *testing.T) {
	t.Setenv("NATS_URL", startServer(t))
	if _, err := Open(t.Context(), Config{}); err == nil {
		t.Fatal("Open without a URL used the environment's NATS_URL")
	}
}

func TestAContextFileSuppliesTheURL(t *testing.T) {
	url := startServer(t)
	path := filepath.Join(t.TempDir(), "store.json")
	if err := os.WriteFile(path, []byte(`{"url": "`+url+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, Config{Config: natsconn.Config{Context: path}, Bucket: "from_context"})
	if fresh, err := s.Use(t.Context(), used(strings.Repeat("ef", 16))); !fresh || err != nil {
		t.Fatalf("use through a context: %v %v", fresh, err)
	}
}

// BenchmarkUse measures one recorded use against a local server: the cost
// the NATS store adds to every answered approval.
func BenchmarkUse(b *testing.B) {
	s := open(b, Config{Config: natsconn.Config{URL: startServer(b)}})
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if fresh, err := s.Use(ctx, used(strings.Repeat("0", 24)+strconv.FormatInt(int64(1<<32+i), 16)[1:])); !fresh || err != nil {
			b.Fatal(fresh, err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
