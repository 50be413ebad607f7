package gateway_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/accesslog"
)

// entries collects what the gateway hands its access log.
type entries struct {
	mu   sync.Mutex
	list []accesslog.Entry
	seen chan struct{}
}

func (e *entries) Add(x accesslog.Entry) {
	e.mu.Lock()
	e.list = append(e.list, x)
	e.mu.Unlock()
	e.seen <- struct{}{}
}

// byID waits for the entry of a request id (entries are added after the
// answer has gone out).
func (e *entries) byID(t *testing.T, id string) accesslog.Entry {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		e.mu.Lock()
		for _, x := range e.list {
			if x.RequestID == id {
				e.mu.Unlock()
				return x
			}
		}
		e.mu.Unlock()
		select {
		case <-e.seen:
		case <-timeout:
			t.Fatalf("no access log entry for request %s", id)
		}
	}
}

// TestAccessLogEntries: every answered request reaches the access log
// sink with its id, service, status, path and the caller's user and role,
// the same place the JSON access log line is written from.
func TestAccessLogEntries(t *testing.T) {
	t.Parallel()
	sink := &entries{seen: make(chan struct{}, 100)}
	b := setup(t, gateway.Config{AccessLog: sink}, nil)
	token := b.userToken(t, time.Now().Add(time.Hour))

	res, _ := b.do(t, "GET", "/rest/v1/tracks?select=id&apikey=secret", map[string]string{"apikey": b.keys.AnonKey, "Authorization": "Bearer " + token})
	got := sink.byID(t, res.Header.Get("X-Request-Id"))
	if got.Service != "rest" || got.Method != "GET" || got.Path != "/rest/v1/tracks" || got.Status != http.StatusOK ||
		got.UserID != "11111111-1111-1111-1111-111111111111" || got.Role != "authenticated" || got.At.IsZero() {
		t.Errorf("entry %+v", got)
	}
	if got.Query != "apikey=redacted&select=id" {
		t.Errorf("query %q: the key in the query string must be redacted", got.Query)
	}

	// A refused call is logged too, with no user.
	res, _ = b.do(t, "GET", "/rest/v1/tracks", nil)
	got = sink.byID(t, res.Header.Get("X-Request-Id"))
	if got.Status != http.StatusUnauthorized || got.UserID != "" {
		t.Errorf("refused call's entry %+v (answer %d)", got, res.StatusCode)
	}
	res, _ = b.do(t, "GET", "/nowhere", nil)
	got = sink.byID(t, res.Header.Get("X-Request-Id"))
	if got.Service != "gateway" || got.Status != http.StatusNotFound {
		t.Errorf("unrouted call's entry %+v", got)
	}
}
