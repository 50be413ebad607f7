package gateway

import (
	"encoding/json"
	"errors"
	"github.com/klauspost/compress/gzhttp"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/basaltdev/basalt/internal/lazy"
)

// AppConfig configures the static app server.
type AppConfig struct {
	// Dir is the built frontend (index.html at its root). It is read per
	// request, so a build made after start is served without a restart.
	Dir string
	// Runtime is the configuration the frontend reads at start from
	// /config.json or /env.js, so one build runs against any Basalt.
	Runtime RuntimeConfig
}

// RuntimeConfig is what a frontend needs to create its supabase-js client.
type RuntimeConfig struct {
	SupabaseURL            string `json:"SUPABASE_URL"`
	SupabaseAnonKey        string `json:"SUPABASE_ANON_KEY"`
	SupabasePublishableKey string `json:"SUPABASE_PUBLISHABLE_KEY,omitempty"`
}

// App serves a single-page app: its files, the runtime configuration, and
// index.html for any other path (history-API routing).
type App struct {
	cfg AppConfig
	log *slog.Logger
	// gz is serve behind on-the-fly compression: the entry bundle is a few
	// hundred KB of JavaScript that gzip shrinks about four times, which is
	// what keeps the first paint fast on slow mobile networks.
	gz http.Handler
	// previews answers crawlers with link previews; nil until UsePreviews.
	previews atomic.Pointer[previews]
}

var _ http.Handler = (*App)(nil)

// NewApp returns the app server.
func NewApp(cfg AppConfig, log *slog.Logger) *App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &App{cfg: cfg, log: log}
	a.gz = gzhttp.GzipHandler(http.HandlerFunc(a.serve))
	return a
}

// UsePreviews turns on link previews for crawlers (see PreviewConfig). The
// app server starts before the database is reached, so they are turned on
// once it is.
func (a *App) UsePreviews(cfg PreviewConfig) error {
	p, err := newPreviews(cfg)
	if err != nil {
		return err
	}
	a.previews.Store(p)
	return nil
}

// Cache policies. Hashed file names change with their content, so they may
// be cached for a year; index.html and the service worker must be
// revalidated on every load or users would stay on an old release.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheNone      = "no-cache"
	cacheNoStore   = "no-store"
)

// hashedName matches build outputs like index-BxK3f9aQ.js or app.3f9a1c2d.css.
var hashedName = lazy.NewRegexp(`[.-][A-Za-z0-9_]{8,}\.[a-z0-9]+$`)

// ServeHTTP implements http.Handler.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.gz.ServeHTTP(w, r)
}

// serve answers one request, uncompressed.
func (a *App) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	// The runtime config is generated, never cached: a new deployment with
	// other keys must reach clients on their next load.
	case "/config.json":
		w.Header().Set("Cache-Control", cacheNoStore)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(a.cfg.Runtime)
		return
	case "/env.js":
		b, _ := json.Marshal(a.cfg.Runtime)
		w.Header().Set("Cache-Control", cacheNoStore)
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte("window.__BASALT_ENV__ = " + string(b) + ";\n"))
		return
	}
	// path.Clean on a rooted path removes every "..", so a request can never
	// leave Dir; os.DirFS adds its own check on top.
	fsys := os.DirFS(a.cfg.Dir)
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if st, err := fs.Stat(fsys, name); err == nil && st.IsDir() {
		name = path.Join(name, "index.html")
	}
	if a.serveFile(w, r, fsys, name) {
		return
	}
	// A missing path with a file extension is a missing asset: 404. Anything
	// else is a client-side route: hand out the app shell.
	if path.Ext(name) != "" && !strings.HasSuffix(name, ".html") {
		http.NotFound(w, r)
		return
	}
	if a.servePreview(w, r, fsys) {
		return
	}
	if !a.serveFile(w, r, fsys, "index.html") {
		w.Header().Set("Cache-Control", cacheNone)
		http.Error(w, "no frontend build found in "+a.cfg.Dir+" (build the frontend first)", http.StatusNotFound)
	}
}

// serveFile writes one file with its cache policy; false when it is absent.
func (a *App) serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) bool {
	f, err := fsys.Open(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			a.log.Warn("app server: open file", "file", name, "err", err)
		}
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return false
	}
	base := path.Base(name)
	switch {
	case base == "index.html" || base == "sw.js" || base == "service-worker.js" || base == "registerSW.js":
		w.Header().Set("Cache-Control", cacheNone)
	case hashedName.MatchString(base):
		w.Header().Set("Cache-Control", cacheImmutable)
	default:
		w.Header().Set("Cache-Control", cacheNone)
	}
	// ServeContent handles Range, HEAD and If-Modified-Since for us; it
	// needs a seekable file, which os.DirFS files are.
	rs, ok := f.(interface {
		Read([]byte) (int, error)
		Seek(int64, int) (int64, error)
	})
	if !ok {
		return false
	}
	modTime := st.ModTime()
	if base == "index.html" {
		modTime = time.Time{} // always revalidate by content, never by date
	}
	http.ServeContent(w, r, base, modTime, rs)
	return true
}

// shellTitle is the app shell's own title, replaced in a preview.
var (
	shellTitle = lazy.NewRegexp(`(?is)<title>.*?</title>\s*`)
	shellHead  = lazy.NewRegexp(`(?i)<head(\s[^>]*)?>`)
)

// servePreview answers a crawler asking for a page with a preview: the app
// shell with the page's Open Graph tags at the top of its head. False when
// the request is not one, or the page has no preview (or the database did
// not answer in time): the shell is served as it is.
func (a *App) servePreview(w http.ResponseWriter, r *http.Request, fsys fs.FS) bool {
	p := a.previews.Load()
	if p == nil {
		return false
	}
	for _, prefix := range p.cfg.Paths {
		if strings.HasPrefix(r.URL.Path, prefix) {
			// Shared caches must keep the crawlers' answer apart.
			w.Header().Add("Vary", "User-Agent")
			break
		}
	}
	if !p.wants(r) {
		return false
	}
	pv, err := p.lookup(r.Context(), r.URL.Path)
	if err != nil {
		a.log.Warn("app server: link preview", "err", err)
		return false
	}
	if pv == nil {
		return false
	}
	shell, err := fs.ReadFile(fsys, "index.html")
	if err != nil {
		return false
	}
	page := shellTitle.ReplaceAllString(string(shell), "")
	tags := p.tags(pv, requestURL(r))
	if loc := shellHead.FindStringIndex(page); loc != nil {
		page = page[:loc[1]] + "\n" + tags + page[loc[1]:]
	} else {
		page = tags + page
	}
	w.Header().Set("Cache-Control", cacheNone)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return true
	}
	_, _ = w.Write([]byte(page))
	return true
}
