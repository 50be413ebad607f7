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

// FuzzPreviewTags: whatever the app's function answers (titles and images
// come from users), the head it writes holds only the tags it means to:
// every value is escaped, and an image is an http(s) URL or nothing.
func FuzzPreviewTags(f *testing.F) {
	f.Add("Tom & \"Jerry\"", "<script>alert(1)</script>", "/storage/v1/object/public/covers/a b.jpg", "music.song", "http://h/track/1")
	f.Add("x", "", "javascript:alert(1)", "", "")
	f.Add("'\"><img src=x onerror=alert(1)>", "\x00\n", "//evil.example/x.png", "a\"b", "http://h/p?q=\"<")
	f.Fuzz(func(t *testing.T, title, description, image, kind, pageURL string) {
		p := &previews{cfg: PreviewConfig{APIURL: "https://api.example.com"}}
		out := p.tags(&preview{Title: title, Description: description, Image: image, Type: kind}, pageURL)
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "<title>") && strings.HasSuffix(line, "</title>"):
				if inner := line[len("<title>") : len(line)-len("</title>")]; strings.ContainsAny(inner, "<>") {
					t.Fatalf("unescaped title %q", line)
				}
			case strings.HasPrefix(line, "<meta ") && strings.HasSuffix(line, "\">"):
				// <meta name|property="key" content="value">: exactly four quotes.
				if strings.Count(line, "\"") != 4 || strings.ContainsAny(line[1:len(line)-1], "<>") {
					t.Fatalf("a value escaped its attribute: %q", line)
				}
				if strings.Contains(line, "image\" content=") {
					v := line[strings.Index(line, "content=\"")+len("content=\"") : len(line)-2]
					if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
						t.Fatalf("image %q is not an http(s) URL", v)
					}
				}
			default:
				t.Fatalf("unexpected line %q in %q", line, out)
			}
		}
	})
}
