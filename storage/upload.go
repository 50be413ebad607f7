package storage

import (
	"net/http"
)

// An upload passes five stages, one after the other, each in a file of its
// own, so that following one through the code reads front to back:
//
//	parse      upload_parse.go      what was sent: the headers or the leading
//	                                multipart fields, and the path
//	authorize  upload_authorize.go  the bucket, its rules and the caller's policies,
//	                                before any byte is stored
//	bytes      upload_bytes.go      the body, streamed to a fresh version key
//	record     upload_record.go     the row, written as the owner; the bytes it
//	                                replaced, removed
//	respond    here                 {"Id","Key"}
//
// Signed uploads (sign.go), TUS (tus.go) and copies (move.go) enter the
// same stages where they apply.

// upload answers POST /object/{bucket}/{path}; x-upsert: true makes it an
// upsert.
func (s *Service) upload(w http.ResponseWriter, r *http.Request) error {
	return s.uploadAs(w, r, r.Header.Get("x-upsert") == "true")
}

// update answers PUT /object/{bucket}/{path}, always an upsert.
func (s *Service) update(w http.ResponseWriter, r *http.Request) error {
	return s.uploadAs(w, r, true)
}

// uploadAs walks an upload through its stages.
// Like the reference's JWT routes, the caller is checked before any
// stage reads the request.
func (s *Service) uploadAs(w http.ResponseWriter, r *http.Request, upsert bool) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	up := parseUpload(r, c, upsert)
	if err := s.authorizeUpload(r, up); err != nil {
		return err
	}
	if err := s.writeBytes(r, up); err != nil {
		return err
	}
	o, err := s.recordUpload(r, up)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]string{"Id": o.ID, "Key": up.bucket.ID + "/" + o.Name})
}
