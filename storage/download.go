package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// download answers GET|HEAD /object/{bucket}/{path} (anon-ok).
func (s *Service) download(w http.ResponseWriter, r *http.Request) error {
	return s.downloadAs(w, r, s.anonOK(r))
}

// downloadAuthenticated answers /object/authenticated/...: a valid JWT is
// required.
func (s *Service) downloadAuthenticated(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	return s.downloadAs(w, r, c)
}

// downloadAs serves bucket/path for caller c: the bucket is looked up as the
// owner (its existence is not secret, its objects are), then
// readBucketObject applies the public-bucket shortcut or RLS.
func (s *Service) downloadAs(w http.ResponseWriter, r *http.Request, c caller) error {
	_, o, err := s.readBucketObject(r, c, param(r, "bucket"), param(r, "path"), false)
	if err != nil {
		return err
	}
	return s.serveObject(w, r, o, nil)
}

// downloadPublic answers /object/public/{bucket}/{path}: no auth, public
// buckets only. This is the path apps stream media from, so the bucket and
// the object come from one query.
func (s *Service) downloadPublic(w http.ResponseWriter, r *http.Request) error {
	bucketID, name := param(r, "bucket"), param(r, "path")
	var public *bool
	var o object
	err := s.admin.QueryRow(r.Context(), `SELECT b.public, coalesce(o.id::text, ''), b.id, coalesce(o.name, ''),
		o.owner::text, o.owner_id, o.version, o.created_at, o.updated_at, o.last_accessed_at, o.metadata, o.user_metadata
		FROM storage.buckets b LEFT JOIN storage.objects o ON o.bucket_id = b.id AND o.name = $2
		WHERE b.id = $1`, bucketID, name).Scan(&public, &o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID, &o.Version,
		&o.CreatedAt, &o.UpdatedAt, &o.LastAccessedAt, &o.Metadata, &o.UserMetadata)
	switch {
	case errors.Is(err, pgx.ErrNoRows), err == nil && (public == nil || !*public):
		return errNoSuchBucket()
	case err != nil:
		return errInternal(fmt.Errorf("load public object %s/%s: %w", bucketID, name, err))
	case o.ID == "":
		return errNoSuchKey()
	}
	return s.serveObject(w, r, o, nil)
}

// byteRange is a resolved single range: bytes [start, start+length).
type byteRange struct{ start, length int64 }

// parseRange resolves a Range header against size. ok is false when the
// header is absent or not one we serve partially (then the whole object is
// sent, as RFC 9110 allows); unsat reports an unsatisfiable range.
func parseRange(h string, size int64) (rg byteRange, ok, unsat bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return rg, false, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return rg, false, false
	}
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	if first == "" {
		// Suffix range: the final n bytes.
		n, ok := httpx.ParseDigits(last)
		if !ok {
			return rg, false, false
		}
		if n == 0 || size == 0 {
			return rg, false, true
		}
		n = min(n, size)
		return byteRange{size - n, n}, true, false
	}
	start, ok := httpx.ParseDigits(first)
	if !ok {
		return rg, false, false
	}
	end := size - 1
	if last != "" {
		e, ok := httpx.ParseDigits(last)
		// Both beyond int64: compare the numerals themselves.
		if !ok || e < start || (e == math.MaxInt64 && httpx.DigitsLess(last, first)) {
			return rg, false, false
		}
		end = min(e, size-1)
	}
	if start >= size {
		return rg, false, true
	}
	return byteRange{start, end - start + 1}, true, false
}

// serveOpts changes serveObject for signed URLs.
type serveOpts struct {
	expires time.Time // sent as Expires instead of Cache-Control
}

// serveObject writes o's bytes with the reference's headers: conditional
// requests, single ranges, ?download naming.
func (s *Service) serveObject(w http.ResponseWriter, r *http.Request, o object, opts *serveOpts) error {
	m := o.meta()
	lm := o.lastModified()
	h := w.Header()
	ct := m.Mimetype
	if base := strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0])); base == "text/html" {
		ct = "text/plain" // never let stored HTML run on the API origin
	}
	h.Set("Content-Type", ct)
	h.Set("ETag", m.ETag)
	if !lm.IsZero() {
		h.Set("Last-Modified", lm.UTC().Format(http.TimeFormat))
	}
	if opts != nil && !opts.expires.IsZero() {
		h.Set("Expires", opts.expires.UTC().Format(http.TimeFormat))
	} else {
		h.Set("Cache-Control", m.CacheControl)
	}
	h.Set("Accept-Ranges", "bytes")
	robots := m.XRobotsTag
	if robots == "" {
		robots = "none"
	}
	h.Set("X-Robots-Tag", robots)
	if v, ok := r.URL.Query()["download"]; ok {
		h.Set("Content-Disposition", contentDisposition(v[0]))
	}
	// Validators are checked before the backend is touched: a 304 costs one
	// row lookup and no I/O.
	if notModified(r, m.ETag, lm) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	// The size comes from the row's metadata, so ranges resolve without a
	// backend stat; the backend then reads only the requested bytes.
	size := m.Size
	status, rg := http.StatusOK, byteRange{0, size}
	if v := r.Header.Get("Range"); v != "" && rangeApplies(r, m.ETag, lm) {
		pr, ok, unsat := parseRange(v, size)
		if unsat {
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			return &Error{Status: 416, Code: "InvalidRange", Label: "InvalidRange",
				Message: "The requested range is not satisfiable", HTTPStatus: http.StatusRequestedRangeNotSatisfiable}
		}
		if ok {
			status, rg = http.StatusPartialContent, pr
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", pr.start, pr.start+pr.length-1, size))
		}
	}
	body, err := s.backend.Get(r.Context(), o.key(), rg.start, rg.length)
	if err != nil {
		// The error answer must not carry the object's headers.
		for _, k := range []string{"ETag", "Last-Modified", "Cache-Control", "Expires", "Accept-Ranges",
			"Content-Range", "Content-Disposition", "X-Robots-Tag"} {
			h.Del(k)
		}
	}
	if errors.Is(err, ErrNotExist) {
		// A row whose bytes are gone (restored database, lost disk): the
		// reference's "resource was not found".
		return errMissingBytes()
	}
	if err != nil {
		return errInternal(fmt.Errorf("open %s: %w", o.key(), err))
	}
	defer body.Close()
	// io.Copy hands the file backend's reader (an *os.File, or a section
	// whose WriteTo passes an *io.LimitedReader over it) to the
	// ResponseWriter's ReadFrom, which uses sendfile; nothing is buffered
	// beyond the copy window. Every writer wrapped around the server's
	// (the gateway's recorder) must pass ReadFrom on for that to happen.
	h.Set("Content-Length", contentLengthHeader(rg.length))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	if n, err := io.Copy(w, body); err != nil {
		// Headers are gone; all we can do is log and cut the response. A
		// client that left mid-download is routine, anything else (the
		// backend failing to read) is worth a warning.
		if httpx.AwaitClientGone(r, 250*time.Millisecond) {
			s.log.InfoContext(r.Context(), "storage: download abandoned by the client", "key", o.key(),
				"sent", n, "err", err)
		} else {
			s.log.WarnContext(r.Context(), "storage: download interrupted", "key", o.key(), "err", err)
		}
	}
	return nil
}

// notModified applies If-None-Match, then If-Modified-Since.
func notModified(r *http.Request, etag string, lm time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == etag {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !lm.IsZero() {
		if t, err := http.ParseTime(ims); err == nil && !lm.Truncate(time.Second).After(t) {
			return true
		}
	}
	return false
}

// rangeApplies honours If-Range: a stale validator means the whole object.
func rangeApplies(r *http.Request, etag string, lm time.Time) bool {
	ir := r.Header.Get("If-Range")
	if ir == "" {
		return true
	}
	if strings.HasPrefix(ir, `"`) {
		return ir == etag
	}
	t, err := http.ParseTime(ir)
	return err == nil && !lm.Truncate(time.Second).After(t)
}

// contentDisposition renders ?download=: empty means a bare attachment,
// otherwise the name is sent percent-encoded in both forms.
func contentDisposition(name string) string {
	if name == "" {
		return "attachment;"
	}
	enc := encodeURIComponent(name)
	return fmt.Sprintf("attachment; filename=%s; filename*=UTF-8''%s", enc, enc)
}

// encodeURIComponent matches JavaScript's function of that name.
func encodeURIComponent(s string) string {
	e := url.QueryEscape(s)
	e = strings.ReplaceAll(e, "+", "%20")
	for _, c := range []string{"!", "'", "(", ")", "*"} {
		e = strings.ReplaceAll(e, url.QueryEscape(c), c)
	}
	return e
}

// objectInfo is the JSON of GET /object/info/...
type objectInfo struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Version      *string         `json:"version"`
	BucketID     string          `json:"bucket_id"`
	Size         int64           `json:"size"`
	ContentType  string          `json:"content_type"`
	CacheControl string          `json:"cache_control"`
	ETag         string          `json:"etag"`
	Metadata     json.RawMessage `json:"metadata"`
	LastModified any             `json:"last_modified"`
	CreatedAt    any             `json:"created_at"`
}

// info answers GET /object/info/{bucket}/{path} (anon-ok).
func (s *Service) info(w http.ResponseWriter, r *http.Request) error {
	return s.infoAs(w, r, s.anonOK(r), false)
}

// infoAuthenticated requires a valid JWT.
func (s *Service) infoAuthenticated(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	return s.infoAs(w, r, c, false)
}

// infoPublic serves info for public buckets without auth.
func (s *Service) infoPublic(w http.ResponseWriter, r *http.Request) error {
	return s.infoAs(w, r, caller{}, true)
}

// infoAs answers the info routes with the same visibility rules as a
// download; metadata here is the user's metadata ({} when none), the system
// metadata is spread into size, content_type, etag and cache_control.
func (s *Service) infoAs(w http.ResponseWriter, r *http.Request, c caller, public bool) error {
	_, o, err := s.readBucketObject(r, c, param(r, "bucket"), param(r, "path"), public)
	if err != nil {
		return err
	}
	m := o.meta()
	return writeJSON(w, objectInfo{
		ID: o.ID, Name: o.Name, Version: o.Version, BucketID: o.BucketID, Size: m.Size,
		ContentType: m.Mimetype, CacheControl: m.CacheControl, ETag: m.ETag,
		Metadata: userMetaOrEmpty(o.UserMetadata), LastModified: isoPtr(o.UpdatedAt), CreatedAt: isoPtr(o.CreatedAt),
	})
}
