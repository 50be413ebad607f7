// Command testidp runs the test OpenID Connect provider of package
// testidp for tests that drive Basalt from outside (the supabase-js
// compat tests). It prints one JSON line with the issuer, the client
// credentials and the origin of its controls (testidp.IdP.Control, on a
// port of their own), then serves until stdin closes or it is signalled.
//
//	go run ./auth/testidp/cmd/testidp [-addr 127.0.0.1:0]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/basaltdev/basalt/auth/testidp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback)")
	flag.Parse()
	p, err := testidp.Start(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testidp:", err)
		os.Exit(1)
	}
	defer p.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testidp:", err)
		os.Exit(1)
	}
	go func() { _ = http.Serve(ln, p.Control()) }()
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"issuer": p.Issuer(), "client_id": p.ClientID,
		"client_secret": p.ClientSecret, "origin": p.Addr(), "control": "http://" + ln.Addr().String()})
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
}
