package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
)

// Signed URL tokens are HS256 JWTs signed with the project secret, shaped
// like the reference's: download tokens carry {url, scope:"download", iat,
// exp[, transformations]}, upload tokens {owner, url, upsert,
// scope:"upload", iat, exp}. The url claim is "<bucket>/<path>" and must
// match the request exactly, so a token opens one object and nothing else.

// signInput is the body of POST /object/sign/{bucket}/{path}.
type signInput struct {
	ExpiresIn json.RawMessage `json:"expiresIn"`
	Transform *transform      `json:"transform"`
}

// signManyInput is the body of POST /object/sign/{bucket}.
type signManyInput struct {
	signInput
	Paths []string `json:"paths" validate:"required,min=1"`
}

// expiry validates expiresIn (an integer number of seconds, at least 1).
func (in signInput) expiry() (time.Duration, error) {
	if len(in.ExpiresIn) == 0 || string(in.ExpiresIn) == "null" {
		return 0, errSchema("body must have required property 'expiresIn'")
	}
	var n float64
	if err := json.Unmarshal(in.ExpiresIn, &n); err != nil {
		var s string
		if json.Unmarshal(in.ExpiresIn, &s) != nil {
			return 0, errInvalid("Invalid Parameter expiresIn")
		}
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			return 0, errInvalid("Invalid Parameter expiresIn")
		}
	}
	if n < 1 || n != float64(int64(n)) {
		return 0, errInvalid("Invalid Parameter expiresIn")
	}
	return time.Duration(n) * time.Second, nil
}

// signDownload makes a download token for bucket/name.
func (s *Service) signDownload(bucketID, name string, ttl time.Duration, tr *transform) (string, error) {
	now := s.now()
	claims := gojwt.MapClaims{"url": bucketID + "/" + name, "scope": "download", "iat": now.Unix(),
		"exp": now.Add(ttl).Unix()}
	if tr != nil && !tr.empty() {
		claims["transformations"] = tr.claim()
	}
	return s.keys.SignHS256(claims)
}

// signedPath is the relative URL the reference returns for a signed object.
func (s *Service) signedPath(bucketID, name, token string, tr *transform) string {
	base := "/object/sign/"
	if tr != nil && !tr.empty() && s.cfg.ImageTransform {
		base = "/render/image/sign/"
	}
	return base + bucketID + "/" + name + "?token=" + token
}

// signURL answers POST /object/sign/{bucket}/{path}: RLS SELECT as the caller,
// then a token.
func (s *Service) signURL(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in signInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ttl, err := in.expiry()
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	// Signing needs the object to be visible to the caller (RLS SELECT,
	// even in a public bucket); a private bucket without a token is
	// reported as a missing object here, as the reference does.
	name := param(r, "path")
	private := b
	private.Public = false
	if _, err := s.readObject(r, c, private, name, false); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == "NoSuchBucket" {
			return errNoSuchKey()
		}
		return err
	}
	tr := in.Transform
	if !s.cfg.ImageTransform {
		tr = nil // transforms off: a plain object URL, as the reference does
	}
	tok, err := s.signDownload(b.ID, name, ttl, tr)
	if err != nil {
		return errInternal(err)
	}
	return writeJSON(w, map[string]string{"signedURL": s.signedPath(b.ID, name, tok, tr)})
}

// signURLs answers POST /object/sign/{bucket} for many paths at once.
func (s *Service) signURLs(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in signManyInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ttl, err := in.expiry()
	if err != nil {
		return err
	}
	if err := checkBulkList(&in, in.Paths); err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	// One RLS SELECT for all paths; each path then gets a URL or the
	// reference's per-entry error, never a failure of the whole call.
	visible := map[string]bool{}
	err = s.asUser(r.Context(), r, c, "storage.object.sign", func(tx pgx.Tx) error {
		rows, err := tx.Query(r.Context(), `SELECT name FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)`,
			b.ID, in.Paths)
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, n := range names {
			visible[n] = true
		}
		return err
	})
	if err != nil {
		return rlsError(err, "sign urls")
	}
	type entry struct {
		Path      string  `json:"path"`
		SignedURL *string `json:"signedURL"`
		Error     *string `json:"error"`
	}
	out := make([]entry, 0, len(in.Paths))
	for _, p := range in.Paths {
		e := entry{Path: p}
		if visible[p] {
			tok, err := s.signDownload(b.ID, p, ttl, nil)
			if err != nil {
				return errInternal(err)
			}
			u := s.signedPath(b.ID, p, tok, nil)
			e.SignedURL = &u
		} else {
			msg := "Either the object does not exist or you do not have access to it"
			e.Error = &msg
		}
		out = append(out, e)
	}
	return writeJSON(w, out)
}

// verifyToken checks a signed URL token for bucket/name and scope. Bad or
// expired tokens are InvalidJWT; a token for another object or purpose is
// InvalidSignature.
func (s *Service) verifyToken(token, bucketID, name, scope string) (map[string]any, time.Time, error) {
	if token == "" {
		return nil, time.Time{}, errInvalid("querystring must have required property 'token'")
	}
	cl, err := s.keys.Verify(token, s.now())
	if err != nil {
		return nil, time.Time{}, errInvalidJWT(joseMessage(err))
	}
	// Tokens made before scopes existed are told apart by the upsert claim
	// that only upload tokens carry.
	m := cl.Map
	gotScope, _ := m["scope"].(string)
	_, hasUpsert := m["upsert"]
	switch {
	case gotScope == scope:
	case gotScope == "" && scope == "download" && !hasUpsert:
	case gotScope == "" && scope == "upload" && hasUpsert:
	default:
		return nil, time.Time{}, errInvalidSignature("Token is not scoped for " + scope)
	}
	if u, _ := m["url"].(string); u != bucketID+"/"+name {
		return nil, time.Time{}, errInvalidSignature("Invalid signature")
	}
	return m, cl.Expires, nil
}

// downloadSigned answers GET /object/sign/{bucket}/{path}?token=: no auth,
// the token decides; Expires replaces Cache-Control.
func (s *Service) downloadSigned(w http.ResponseWriter, r *http.Request) error {
	bucketID, name := param(r, "bucket"), param(r, "path")
	_, exp, err := s.verifyToken(r.URL.Query().Get("token"), bucketID, name, "download")
	if err != nil {
		return err
	}
	o, err := s.adminObject(r, bucketID, name)
	if err != nil {
		return err
	}
	return s.serveObject(w, r, o, &serveOpts{expires: exp})
}

// signUploadURL answers POST /object/upload/sign/{bucket}/{path}: the same
// policy test as an upload, then an upload token.
func (s *Service) signUploadURL(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	name := param(r, "path")
	if err := validateNewKey(name); err != nil {
		return err
	}
	// The policy test sees what the reference shows it: the declared type
	// and length of the coming upload, and its user metadata.
	up := &uploadReq{bucket: b, name: name, upsert: r.Header.Get("x-upsert") == "true", owner: c.sub(),
		mimetype: r.Header.Get("Content-Type"), length: r.ContentLength}
	if strings.HasPrefix(up.mimetype, "application/json") || up.mimetype == "" {
		up.mimetype = "application/octet-stream" // the JSON body of this call, not the file's type
	}
	if v := r.Header.Get("x-metadata"); v != "" {
		if raw, err := base64.StdEncoding.DecodeString(v); err == nil && json.Valid(raw) {
			up.userMeta = raw
		}
	}
	if err := s.canInsert(r, c, up); err != nil {
		return err
	}
	now := s.now()
	tok, err := s.keys.SignHS256(gojwt.MapClaims{"owner": c.sub(), "url": b.ID + "/" + name, "upsert": up.upsert,
		"scope": "upload", "iat": now.Unix(), "exp": now.Add(s.cfg.UploadURLExpiry).Unix()})
	if err != nil {
		return errInternal(err)
	}
	return writeJSON(w, map[string]string{
		"url":   "/object/upload/sign/" + b.ID + "/" + name + "?token=" + url.QueryEscape(tok),
		"token": tok,
	})
}

// uploadSigned answers PUT /object/upload/sign/{bucket}/{path}?token=: the
// token authorises the write (no RLS); its upsert claim, not the header,
// decides whether an existing object may be replaced.
func (s *Service) uploadSigned(w http.ResponseWriter, r *http.Request) error {
	bucketID, name := param(r, "bucket"), param(r, "path")
	m, _, err := s.verifyToken(r.URL.Query().Get("token"), bucketID, name, "upload")
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, bucketID)
	if err != nil {
		return err
	}
	up, err := readUpload(r)
	if err != nil {
		return err
	}
	up.name = name
	if err := s.applyBucket(up, b); err != nil {
		return err
	}
	up.upsert, _ = m["upsert"].(bool)
	up.owner, _ = m["owner"].(string)
	if !up.upsert {
		// A second use of a non-upsert token fails before any byte is stored.
		if _, err := s.adminObject(r, b.ID, name); err == nil {
			return errKeyExists()
		}
	}
	if err := s.writeBytes(r, up); err != nil {
		return err
	}
	if _, err := s.recordUpload(r, up); err != nil {
		return err
	}
	return writeJSON(w, map[string]string{"Key": b.ID + "/" + name})
}
