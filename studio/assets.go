package studio

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/lazy"
)

// dist is the app built from studio/web (`just studio-build`), committed so
// that `go install ./cmd/basalt` gives a binary with Studio inside without
// Node; TestDistIsFresh fails while it is stale against the sources.
//
//go:embed dist
var dist embed.FS

// appFS is dist without its folder prefix.
var appFS = &lazy.Value[fs.FS]{New: func() fs.FS {
	sub, _ := fs.Sub(dist, "dist")
	return sub
}}

// serveAsset serves a hashed file under /assets/, cached for a year.
func (s *Service) serveAsset(w http.ResponseWriter, r *http.Request) error {
	name := path.Clean("assets/" + r.PathValue("file"))
	b, err := fs.ReadFile(appFS.Get(), name)
	if err != nil || !strings.HasPrefix(name, "assets/") {
		http.NotFound(w, r)
		return nil
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	return nil
}

// serveApp answers every other GET with the app's index.html (its routes
// are the client's), except under the endpoint prefixes, where an unknown
// path is a 404 in the endpoints' shape.
func (s *Service) serveApp(w http.ResponseWriter, r *http.Request) error {
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/pg/") || strings.HasPrefix(p, "/auth/") {
		return notFound("no endpoint %s %s", r.Method, p)
	}
	if name := strings.TrimPrefix(path.Clean(p), "/"); name != "" && name != "index.html" && !strings.Contains(name, "/") {
		// Top-level files of the build (favicon.svg).
		if b, err := fs.ReadFile(appFS.Get(), name); err == nil {
			w.Header().Set("Cache-Control", "public, max-age=3600")
			http.ServeContent(w, r, name, s.started, bytes.NewReader(b))
			return nil
		}
	}
	b, err := fs.ReadFile(appFS.Get(), "index.html")
	if err != nil {
		writeError(w, http.StatusNotFound, "this binary was built without Studio's app")
		return nil
	}
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "index.html", s.started, bytes.NewReader(b))
	return nil
}
