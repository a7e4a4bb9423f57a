// Package natstest runs a real NATS server with JetStream inside a test
// process, for the tests of the stores that keep fisk-mcp's shared state
// on NATS and of the replicas that use them.
//
// It is a separate package from testsupport so that only the tests that
// need a server link one. Only tests import it.
package natstest

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Server is a NATS server with JetStream, listening on 127.0.0.1. Its port
// and store directory survive Stop and Start, so a test can take it away
// and bring it back as an operator would restart it.
type Server struct {
	// Options are the server's; a test may change them between Stop and
	// Start (users and passwords, say).
	Options *server.Options

	t   testing.TB
	srv *server.Server
}

// Start runs a server for the rest of t; each of with, when given, adds to
// its options first (users and permissions, say).
func Start(t testing.TB, with ...func(*server.Options)) *Server {
	t.Helper()
	s := &Server{t: t, Options: &server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}}
	for _, f := range with {
		f(s.Options)
	}
	s.Start()
	s.Options.Port = s.srv.Addr().(*net.TCPAddr).Port
	t.Cleanup(s.Stop)
	return s
}

// URL is where clients connect: nats://127.0.0.1:PORT.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.Options.Port) }

// Start starts the server again after Stop, on the same port and store.
func (s *Server) Start() {
	s.t.Helper()
	srv, err := server.NewServer(s.Options)
	if err != nil {
		s.t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		s.t.Fatal("nats-server did not start")
	}
	s.srv = srv
}

// Stop shuts the server down and waits until it is gone; clients see the
// connection drop. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	if s.srv != nil {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.srv = nil
	}
}

// Client connects a plain JetStream client to url for the rest of t, to
// look at what a store wrote as another tool (nats kv get) would.
func Client(t testing.TB, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// Unreachable returns the URL of a local port where nothing listens.
func Unreachable(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "nats://" + l.Addr().String()
}
