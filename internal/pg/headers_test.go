package pg

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// request.headers must be valid JSON whatever bytes a client sends, with
// the same content encoding/json would produce.
func TestRequestHeaders(t *testing.T) {
	r := httptest.NewRequest("GET", "http://api.example/rest/v1/items", nil)
	r.Header.Set("X-Quote", `say "hi" \ now`)
	r.Header.Set("X-Control", "a\tb\x01c")
	r.Header.Set("X-Bad-Utf8", "ok\xffend")
	r.Header.Set("X-Unicode", "naïra ₦50 <tag> & more")
	r.Header["X-Many"] = []string{"one", "two"}
	r.Header.Set("Cookie", "sb=secret")
	r.Header.Set("Accept", "*/*")
	got := RequestHeaders(r)
	var m map[string]string
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	want := map[string]string{
		"x-quote":    `say "hi" \ now`,
		"x-control":  "a\tb\x01c",
		"x-bad-utf8": "ok\uFFFDend",
		"x-unicode":  "naïra ₦50 <tag> & more",
		"x-many":     "one, two",
		"accept":     "*/*",
		"host":       "api.example",
		"x-real-ip":  "192.0.2.1", // httptest's peer: no gateway vouched for another
	}
	if len(m) != len(want) {
		t.Fatalf("got %d headers %v, want %v", len(m), m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	// Names come out in order, host and x-real-ip in their places, no cookie.
	const order = `{"accept":"*/*","host":"api.example","x-bad-utf8":"ok\ufffdend","x-control":"a\tb\u0001c","x-many":"one, two","x-quote":"say \"hi\" \\ now","x-real-ip":"192.0.2.1","x-unicode":"naïra ₦50 <tag> & more"}`
	if string(got) != order {
		t.Errorf("got  %s\nwant %s", got, order)
	}

	// Without a Host, a Host header (set by hand) is kept; a client's
	// X-Real-Ip is the gateway's to replace, so an unvouched one stands.
	r2 := &http.Request{Header: http.Header{"Host": {"h"}, "X-Real-Ip": {"203.0.113.7"}}}
	if got := string(RequestHeaders(r2)); got != `{"host":"h","x-real-ip":"203.0.113.7"}` {
		t.Errorf("host header: %s", got)
	}
	if got := string(RequestCookies(r2)); got != `{}` {
		t.Errorf("no cookies: %s", got)
	}
}
