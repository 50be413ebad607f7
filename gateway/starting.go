package gateway

import (
	"net/http"
	"sync/atomic"

	"github.com/basaltdev/basalt/internal/httpx"
)

// live answers GET /health/live: the process is up and serving HTTP. It
// checks nothing else, so an orchestrator restarts the process only when it
// is wedged, not when the database is away or migrations are running.
func live(w http.ResponseWriter, version string) {
	httpx.WriteJSON(w, http.StatusOK, healthBody("ok", version))
}

func healthBody(status, version string) map[string]string {
	body := map[string]string{"status": status}
	if version != "" {
		body["version"] = version
	}
	return body
}

// Starting is what the API port answers before the gateway exists (while
// migrations run and pools connect): alive but not ready. /health/live is
// 200; /health and /health/ready are 503 {"status":"starting"}; every other
// path is 503 in the gateway's error format.
func Starting(version string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health/live":
			live(w, version)
		case "/health", "/health/ready":
			httpx.SetRetryAfter(w)
			httpx.WriteJSON(w, http.StatusServiceUnavailable, healthBody("starting", version))
		default:
			httpx.SetRetryAfter(w)
			writeError(w, http.StatusServiceUnavailable, "Basalt is starting")
		}
	})
}

// Handoff serves one handler and can be switched to another while serving,
// so the port can answer health probes before the gateway is built.
type Handoff struct{ h atomic.Pointer[http.Handler] }

// NewHandoff serves h until Set.
func NewHandoff(h http.Handler) *Handoff {
	f := &Handoff{}
	f.Set(h)
	return f
}

// Set makes every later request go to h.
func (f *Handoff) Set(h http.Handler) { f.h.Store(&h) }

func (f *Handoff) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*f.h.Load()).ServeHTTP(w, r) }
