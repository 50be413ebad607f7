package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/singleflight"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// PreviewConfig turns on link previews: crawlers that fetch a shared link
// (chat apps, social sites) get the app shell with Open Graph tags in its
// head, which the app's own SQL function writes. Browsers get the shell as
// it is.
type PreviewConfig struct {
	// DB is the authenticator pool; the function runs as a visitor (anon),
	// so row-level security decides what a preview may show.
	DB pg.DB
	// Function is the SQL function, schema.name, called with the request
	// path; it answers a JSON object (title, description, image, type), or
	// NULL for a path without a preview.
	Function string
	// Paths are the path prefixes that may have previews.
	Paths []string
	// APIURL resolves an image given as a path ("/storage/v1/…").
	APIURL string
	// Timeout bounds one call (default 500 ms): a slow database costs a
	// crawler the preview, not the page.
	Timeout time.Duration
	// TTL is how long an answer is reused (default one minute).
	TTL time.Duration
}

// preview is what the SQL function answers.
type preview struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Image       string `json:"image"`
	Type        string `json:"type"`
}

var (
	previewFunctionName = lazy.NewRegexp(`^[a-z_][a-z0-9_]{0,62}\.[a-z_][a-z0-9_]{0,62}$`)
	// crawlerAgent matches the fetchers of link previews and search engines.
	crawlerAgent = lazy.NewRegexp(`(?i)facebookexternalhit|facebot|twitterbot|whatsapp|slackbot|slack-imgproxy|linkedinbot|discordbot|telegrambot|googlebot|bingbot|applebot|pinterest|redditbot|skypeuripreview|embedly|vkshare|snapchat|viber|mastodon|iframely|yandex|duckduckbot`)
)

// previewCacheMax bounds the cache: crawlers may ask for any number of paths.
const previewCacheMax = 4096

// previews answers previews for the app server, with a short cache.
type previews struct {
	cfg   PreviewConfig
	ident string // the function's quoted name
	group singleflight.Group

	mu    sync.Mutex
	cache map[string]cachedPreview
}

type cachedPreview struct {
	p       *preview
	expires time.Time
}

func newPreviews(cfg PreviewConfig) (*previews, error) {
	if !previewFunctionName.MatchString(cfg.Function) {
		return nil, fmt.Errorf("link previews: function %q is not schema.name", cfg.Function)
	}
	if cfg.DB == nil {
		return nil, errors.New("link previews: no database")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 500 * time.Millisecond
	}
	if cfg.TTL <= 0 {
		cfg.TTL = time.Minute
	}
	schema, name, _ := strings.Cut(cfg.Function, ".")
	return &previews{cfg: cfg, ident: pgx.Identifier{schema, name}.Sanitize(), cache: map[string]cachedPreview{}}, nil
}

// wants reports whether r is a crawler asking for a path with previews.
func (p *previews) wants(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if !crawlerAgent.MatchString(r.UserAgent()) {
		return false
	}
	for _, prefix := range p.cfg.Paths {
		if strings.HasPrefix(r.URL.Path, prefix) {
			return true
		}
	}
	return false
}

// lookup answers the preview of path: from the cache, else from the
// function (one call for concurrent asks). nil without a preview or when
// the call fails.
func (p *previews) lookup(ctx context.Context, path string) (*preview, error) {
	now := time.Now()
	p.mu.Lock()
	c, ok := p.cache[path]
	p.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.p, nil
	}
	v, err, _ := p.group.Do(path, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.Timeout)
		defer cancel()
		// A transaction, not QueryRowAsCaller's one pipeline: that prepares
		// the statement before the role is switched, and the connecting role
		// may not use the function's schema.
		var raw []byte
		err := pg.AsCaller(ctx, p.cfg.DB, pg.Caller{Role: "anon"}, func(tx pgx.Tx) error {
			return tx.QueryRow(ctx, "SELECT "+p.ident+"($1)::jsonb", path).Scan(&raw)
		})
		if err != nil {
			return nil, fmt.Errorf("link preview %s: %w", path, err)
		}
		var pv *preview
		if len(raw) > 0 && string(raw) != "null" {
			pv = &preview{}
			if err := json.Unmarshal(raw, pv); err != nil {
				return nil, fmt.Errorf("link preview %s: %w", path, err)
			}
			if pv.Title == "" {
				pv = nil
			}
		}
		p.store(path, pv, now)
		return pv, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*preview), nil
}

func (p *previews) store(path string, pv *preview, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.cache) >= previewCacheMax {
		for k, c := range p.cache {
			if now.After(c.expires) {
				delete(p.cache, k)
			}
		}
		if len(p.cache) >= previewCacheMax {
			clear(p.cache)
		}
	}
	p.cache[path] = cachedPreview{p: pv, expires: now.Add(p.cfg.TTL)}
}

// tags renders pv as head elements, every value escaped; pageURL is the
// link that was shared.
func (p *previews) tags(pv *preview, pageURL string) string {
	var b strings.Builder
	meta := func(attr, key, value string) {
		if value = oneLine(value); value != "" {
			fmt.Fprintf(&b, "<meta %s=\"%s\" content=\"%s\">\n", attr, key, html.EscapeString(value))
		}
	}
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(oneLine(pv.Title)))
	meta("name", "description", pv.Description)
	meta("property", "og:title", pv.Title)
	meta("property", "og:description", pv.Description)
	meta("property", "og:type", firstNonEmpty(pv.Type, "website"))
	meta("property", "og:url", pageURL)
	image := p.absolute(pv.Image)
	meta("property", "og:image", image)
	if image != "" {
		meta("name", "twitter:card", "summary_large_image")
	} else {
		meta("name", "twitter:card", "summary")
	}
	meta("name", "twitter:title", pv.Title)
	meta("name", "twitter:description", pv.Description)
	meta("name", "twitter:image", image)
	return b.String()
}

// absolute resolves an image path against the API URL; only http(s) URLs
// come out.
func (p *previews) absolute(image string) string {
	if image == "" {
		return ""
	}
	u, err := url.Parse(image)
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		base, err := url.Parse(p.cfg.APIURL)
		if err != nil || p.cfg.APIURL == "" {
			return ""
		}
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// oneLine is s as one line of at most previewMaxRunes: control characters
// and runs of spaces become one space, as previews show them.
func oneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > previewMaxRunes {
		s = string(r[:previewMaxRunes-1]) + "…"
	}
	return s
}

// previewMaxRunes bounds a value: chat apps show a line or two.
const previewMaxRunes = 300

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// requestURL is the URL the client asked for, as the app's public address.
func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path}).String()
}
