package scaleout

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// node is one basalt serve process, reached the way supabase-js reaches
// Basalt: the anon key as apikey, the caller's token as bearer.
type node struct {
	name string
	base string
	proc *proc
	anon string
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// request sends one call; token "" means the anon key.
func (n *node) request(method, path, token string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequest(method, n.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if token == "" {
		token = n.anon
	}
	req.Header.Set("apikey", n.anon)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Client-Info", "supabase-js/2.119.0")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// call is request for steps that must get an answer.
func (n *node) call(t *testing.T, method, path, token string, body any, hdr map[string]string) (int, []byte) {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
	}
	code, out, err := n.request(method, path, token, raw, hdr)
	if err != nil {
		t.Fatalf("%s %s %s: %v", n.name, method, path, err)
	}
	return code, out
}

// want is call that must answer status; it returns the body.
func (n *node) want(t *testing.T, status int, method, path, token string, body any, hdr map[string]string) []byte {
	t.Helper()
	code, out := n.call(t, method, path, token, body, hdr)
	if code != status {
		t.Fatalf("%s %s %s = %d %s; want %d", n.name, method, path, code, out, status)
	}
	return out
}

// metric reads one sample of the node's /metrics ("" labels for none).
func (n *node) metric(t *testing.T, name, labels string) float64 {
	t.Helper()
	res, err := httpClient.Get(n.base + "/metrics")
	if err != nil {
		t.Fatalf("%s /metrics: %v", n.name, err)
	}
	defer res.Body.Close()
	key := name
	if labels != "" {
		key += "{" + labels + "}"
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			return f
		}
	}
	t.Fatalf("%s /metrics has no %s", n.name, key)
	return 0
}

// session is the part of GoTrue's token answer the test uses.
type session struct {
	AccessToken string `json:"access_token"`
	User        struct {
		ID string `json:"id"`
	} `json:"user"`
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}
