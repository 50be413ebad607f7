package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
)

// Stage 1 of an upload, parse: who is asking and what was sent, read
// before anything is looked up.

// maxUserMetadata is the reference's cap on the client's metadata JSON.
const maxUserMetadata = 1 << 20

// uploadReq is an upload as it passes the stages: what parse read, the
// bucket authorize found, the bytes the bytes stage wrote.
type uploadReq struct {
	caller       caller // who uploads (a JWT upload; zero for a token's)
	bucketID     string // from the path; authorize loads it into bucket
	bucket       bucket
	name         string
	upsert       bool
	owner        string // JWT sub, or the signed token's owner
	mimetype     string
	cacheControl string
	userMeta     json.RawMessage
	length       int64 // declared length for the policy test, -1 unknown
	raw          bool  // the body is the request body (not a multipart part)
	body         io.Reader
	robots       string
	// headErr is what was wrong with the headers or fields. A missing
	// bucket is reported before it, so it waits for authorize.
	headErr error
	// version, key and meta are the bytes written: the object's new
	// version, where its bytes are, and their system metadata.
	version string
	key     string
	meta    sysMeta
}

// parseUpload reads a JWT upload of caller c: its headers or leading
// multipart fields (a failure waits for the bucket) and its path.
func parseUpload(r *http.Request, c caller, upsert bool) *uploadReq {
	up, err := readUpload(r)
	if err != nil {
		up = &uploadReq{headErr: err}
	}
	up.caller, up.upsert = c, upsert
	up.bucketID, up.name = param(r, "bucket"), param(r, "path")
	return up
}

// readUpload reads the headers or the leading multipart fields and leaves
// the file streaming.
func readUpload(r *http.Request) (*uploadReq, error) {
	// length is what the policy test reports as contentLength: the
	// request's, since a multipart part's own length is unknown until read.
	up := &uploadReq{length: r.ContentLength}
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); mt == "multipart/form-data" {
		if err := parseMultipart(r, up); err != nil {
			return nil, err
		}
	} else {
		up.mimetype = ct
		if up.mimetype == "" {
			up.mimetype = "application/octet-stream"
		}
		up.cacheControl = r.Header.Get("Cache-Control")
		if v := r.Header.Get("x-metadata"); v != "" {
			raw, err := base64.StdEncoding.DecodeString(v)
			if err != nil || !json.Valid(raw) {
				return nil, errInvalid("Invalid metadata")
			}
			up.userMeta = raw
		}
		up.raw = true
		up.body = r.Body
	}
	if up.cacheControl == "" {
		up.cacheControl = "no-cache"
	}
	up.robots = r.Header.Get("x-robots-tag")
	return up, nil
}

// parseMultipart reads the fields that precede the first file part and
// leaves up.body on that part, as the reference does (later fields are
// ignored).
func parseMultipart(r *http.Request, up *uploadReq) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return errInvalid("No content provided")
	}
	fields := map[string]string{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return errInvalid("No content provided")
		}
		if err != nil {
			return errInvalid("Malformed multipart body")
		}
		if p.FileName() == "" && p.Header.Get("Content-Type") == "" {
			v, err := io.ReadAll(io.LimitReader(p, maxUserMetadata+1))
			if err != nil {
				return errInvalid("Malformed multipart body")
			}
			fields[p.FormName()] = string(v)
			continue
		}
		up.body = p
		up.mimetype = p.Header.Get("Content-Type")
		break
	}
	if v := fields["contentType"]; v != "" {
		up.mimetype = v
	}
	if up.mimetype == "" {
		up.mimetype = "application/octet-stream"
	}
	if v := fields["cacheControl"]; v != "" {
		up.cacheControl = "max-age=" + v
	}
	meta := fields["metadata"]
	if meta == "" {
		meta = fields["userMetadata"]
	}
	if meta != "" {
		if !json.Valid([]byte(meta)) {
			return errInvalid("Invalid metadata")
		}
		up.userMeta = json.RawMessage(meta)
	}
	// The declared length for the policy test is the whole request, as the
	// part's own length is unknown until it is read.
	return nil
}
