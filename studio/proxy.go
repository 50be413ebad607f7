package studio

import (
	"net/http"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
)

// proxyAPI forwards a call to the same path of the API in process: Studio
// serves the reference's shapes at the reference's paths (GoTrue's admin
// API at /auth/v1/admin/..., the storage API at /storage/v1/...), and adds
// the service-role key here: the browser never holds it. The path is sent
// as it came, escaped (a storage object's name may hold %2F or spaces).
func (s *Service) proxyAPI() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.d.API == nil {
			return &httpError{http.StatusServiceUnavailable, errorBody{Error: "the API is not reachable from Studio"}}
		}
		noteAudit(r.Context(), r.URL.Path, nil)
		target := r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		req, err := http.NewRequestWithContext(r.Context(), r.Method, target, r.Body)
		if err != nil {
			return badRequest("%s", err.Error())
		}
		for _, h := range forwardedHeaders {
			if v := r.Header.Get(h); v != "" {
				req.Header.Set(h, v)
			}
		}
		req.Header.Set("apikey", s.d.Keys.ServiceRoleKey)
		req.Header.Set("Authorization", "Bearer "+s.d.Keys.ServiceRoleKey)
		req.RemoteAddr = httpx.ClientIP(r) + ":0"
		req.ContentLength = r.ContentLength
		s.d.API.ServeHTTP(noCORS{w}, req)
		return nil
	}
}

// forwardedHeaders are the request headers the reference APIs read that a
// call through Studio keeps (TUS's among them); the rest, cookies and CSRF
// token first, stay here.
var forwardedHeaders = []string{"Content-Type", "Accept", "Range", "X-Upsert", "Cache-Control",
	"Tus-Resumable", "Upload-Length", "Upload-Offset", "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat"}

// noCORS drops the API's CORS headers: Studio's answers are for its own
// origin only.
type noCORS struct{ http.ResponseWriter }

func (w noCORS) WriteHeader(code int) {
	for k := range w.Header() {
		if strings.HasPrefix(k, "Access-Control-") {
			w.Header().Del(k)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w noCORS) Write(b []byte) (int, error) {
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w noCORS) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
