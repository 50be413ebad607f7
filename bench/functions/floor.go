package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// The floor of any design that keeps a Go HTTP server between the caller
// and a Deno process: the same hello on a bare Deno.serve, behind the
// least a Go server can do per request. No routing, no JWT, no token, no
// request id, no limits: read the request, write it to Deno on a kept-alive
// connection, read the answer, write it back. What Basalt spends above this
// is its own; what this spends above bare Deno no HTTP server in front can
// save.

// hopTransport is a client for one Deno server: a pool as large as the
// concurrency, kept alive, no compression; over the unix socket when
// socket is set, else over loopback TCP.
func hopTransport(socket string, concurrency int) *http.Transport {
	t := &http.Transport{
		MaxIdleConns:        concurrency * 2,
		MaxIdleConnsPerHost: concurrency * 2,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
	if socket != "" {
		t.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}
	} else {
		var d net.Dialer
		t.DialContext = d.DialContext
	}
	return t
}

// hop is the minimal hand-written hop: one shallow copy of the request
// (its header map shared, not copied), the answer's header map handed
// over, the body copied through a pooled buffer. No hop-by-hop header
// handling: the hello needs none.
type hop struct {
	target    *url.URL // scheme and host only
	transport *http.Transport
}

func (h *hop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	out := *r // the context comes along
	u := *h.target
	u.Path, u.RawPath, u.RawQuery = r.URL.Path, r.URL.RawPath, r.URL.RawQuery
	out.URL, out.RequestURI = &u, ""
	res, err := h.transport.RoundTrip(&out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	dst := w.Header()
	for k, v := range res.Header {
		dst[k] = v
	}
	w.WriteHeader(res.StatusCode)
	buf := hopBuffers.Get().(*[]byte)
	_, _ = io.CopyBuffer(w, res.Body, *buf)
	hopBuffers.Put(buf)
}

var hopBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// reverseProxy is the standard library's proxy on the same transport,
// configured as Basalt's worker proxy is (Rewrite, pooled buffers, no
// flush interval), without Basalt's own headers.
func reverseProxy(target *url.URL, t *http.Transport) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite:    func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.Out.Host = pr.In.Host },
		Transport:  t,
		BufferPool: proxyBuffers{},
	}
}

type proxyBuffers struct{}

func (proxyBuffers) Get() []byte  { return *hopBuffers.Get().(*[]byte) }
func (proxyBuffers) Put(b []byte) { hopBuffers.Put(&b) }
