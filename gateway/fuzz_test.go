package gateway

import (
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzClientIP: the address the gateway vouches for in X-Real-Ip. With a
// trusted proxy header, only its last entry (the one the proxy appended)
// counts, whatever the client put before it; an entry that is not an IP
// falls back to the socket peer. Without one, the header is ignored.
func FuzzClientIP(f *testing.F) {
	f.Add("203.0.113.9", "198.51.100.1:4242", "192.0.2.1")
	f.Add("1.1.1.1, 2.2.2.2", "[2001:db8::1]:80", "2001:db8::2")
	f.Add("evil,, ", "10.0.0.1:1", "::ffff:10.0.0.2")
	f.Add("", "not-a-hostport", "x")
	f.Fuzz(func(t *testing.T, header, remote, appended string) {
		trusted := &Gateway{cfg: Config{TrustedProxyHeader: "X-Forwarded-For"}}
		direct := &Gateway{}
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", header)
		peer := remote
		if host, _, err := net.SplitHostPort(remote); err == nil {
			peer = host
		}
		if got := direct.clientIP(r); got != peer {
			t.Fatalf("no trusted header: %q, want the peer %q", got, peer)
		}
		got := trusted.clientIP(r)
		parts := strings.Split(header, ",")
		last := strings.TrimSpace(parts[len(parts)-1])
		if header != "" && net.ParseIP(last) != nil {
			if got != last {
				t.Fatalf("X-Forwarded-For %q: %q, want its last entry %q", header, got, last)
			}
		} else if got != peer {
			t.Fatalf("X-Forwarded-For %q: %q, want the peer %q", header, got, peer)
		}
		// The proxy's entry wins over anything the client sent before it.
		if ip := net.ParseIP(strings.TrimSpace(appended)); ip != nil && !strings.Contains(appended, ",") {
			r.Header.Set("X-Forwarded-For", header+","+appended)
			if got := trusted.clientIP(r); got != strings.TrimSpace(appended) {
				t.Fatalf("X-Forwarded-For %q: %q, want the proxy's %q", header+","+appended, got, strings.TrimSpace(appended))
			}
		}
	})
}
