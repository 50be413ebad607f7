package storage_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The TUS extensions the reference's stores offer beyond creation and
// termination, as tus-js-client uses them: creation-with-upload (the
// first bytes in the POST, uploadDataDuringCreation), creation-defer-length
// and expiration.

// tusEnv is a service with an audio bucket alice may upload to.
type tusEnv struct {
	*env
	data []byte
}

func newTusEnv(t *testing.T, kind string) *tusEnv {
	e := newEnv(t, kind)
	e.bucket("audio", false, map[string]any{"allowed_mime_types": []string{"audio/*"}, "file_size_limit": 20000})
	e.sql(`CREATE POLICY "audio own" ON storage.objects FOR ALL TO authenticated
		USING (bucket_id = 'audio' AND owner_id = auth.uid()::text) WITH CHECK (bucket_id = 'audio')`)
	return &tusEnv{env: e, data: bytes.Repeat([]byte("0123456789"), 1000)}
}

// create sends a creation; body, when not nil, goes with the TUS chunk type.
func (e *tusEnv) create(name string, header map[string]string, body []byte) *httptest.ResponseRecorder {
	h := map[string]string{"Tus-Resumable": "1.0.0",
		"Upload-Metadata": tusMeta("bucketName", "audio", "objectName", name, "contentType", "audio/mpeg")}
	if body != nil {
		h["Content-Type"] = "application/offset+octet-stream"
	}
	for k, v := range header {
		h[k] = v
	}
	var r *bytes.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	rq := req{method: "POST", path: "/upload/resumable", token: e.userToken(alice), header: h}
	if r != nil {
		rq.body = r
	}
	return e.do(rq)
}

func (e *tusEnv) patch(loc string, offset int, chunk []byte, header map[string]string) *httptest.ResponseRecorder {
	h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Offset": itoa(offset), "Content-Type": "application/offset+octet-stream"}
	for k, v := range header {
		h[k] = v
	}
	return e.do(req{method: "PATCH", path: strings.TrimPrefix(loc, "/storage/v1"), token: e.userToken(alice),
		body: bytes.NewReader(chunk), header: h})
}

func (e *tusEnv) head(loc string) *httptest.ResponseRecorder {
	return e.do(req{method: "HEAD", path: strings.TrimPrefix(loc, "/storage/v1"), token: e.userToken(alice),
		header: map[string]string{"Tus-Resumable": "1.0.0"}})
}

// stored checks that name holds exactly data and that no upload is left.
func (e *tusEnv) stored(name string, data []byte) {
	e.t.Helper()
	rec := e.get(e.service, "audio", name, nil)
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), data) {
		e.t.Errorf("%s = %d, %d bytes, want %d bytes", name, rec.Code, rec.Body.Len(), len(data))
	}
	if n := e.count(`SELECT count(*) FROM storage.tus_uploads`); n != 0 {
		e.t.Errorf("%d uploads left after %s", n, name)
	}
}

// wantTusText checks an answer of the TUS protocol itself: the status and
// text the reference's tus server sends.
func wantTusText(t *testing.T, rec *httptest.ResponseRecorder, status int, text string) {
	t.Helper()
	if rec.Code != status || rec.Body.String() != text || rec.Header().Get("Content-Type") != "text/plain;charset=UTF-8" ||
		rec.Header().Get("Tus-Resumable") != "1.0.0" {
		t.Errorf("= %d %q %v, want %d %q as text/plain", rec.Code, rec.Body, rec.Header(), status, text)
	}
}

func TestTUSCreationWithUpload(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newTusEnv(t, kind)

			// The whole file in the creation: one request, done.
			rec := e.create("one.mp3", map[string]string{"Upload-Length": itoa(len(e.data))}, e.data)
			if rec.Code != http.StatusCreated || rec.Header().Get("Upload-Offset") != itoa(len(e.data)) ||
				rec.Header().Get("Tus-Complete") != "1" || rec.Header().Get("Upload-Expires") != "" ||
				!strings.HasPrefix(rec.Header().Get("Location"), "/storage/v1/upload/resumable/") {
				t.Fatalf("create with the whole file = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			e.stored("one.mp3", e.data)

			// Part of it in the creation, the rest in a PATCH.
			created := e.clock.now()
			rec = e.create("two.mp3", map[string]string{"Upload-Length": itoa(len(e.data))}, e.data[:3000])
			loc := rec.Header().Get("Location")
			if rec.Code != http.StatusCreated || rec.Header().Get("Upload-Offset") != "3000" || rec.Header().Get("Tus-Complete") != "" ||
				rec.Header().Get("Upload-Expires") != created.Add(time.Hour).UTC().Format(http.TimeFormat) {
				t.Fatalf("create with a first chunk = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			if rec := e.head(loc); rec.Code != http.StatusOK || rec.Header().Get("Upload-Offset") != "3000" {
				t.Fatalf("head after a first chunk = %d %v", rec.Code, rec.Header())
			}
			rec = e.patch(loc, 3000, e.data[3000:], nil)
			if rec.Code != http.StatusNoContent || rec.Header().Get("Upload-Offset") != itoa(len(e.data)) || rec.Header().Get("Tus-Complete") != "1" {
				t.Fatalf("patch the rest = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			e.stored("two.mp3", e.data)

			// A first chunk larger than the upload is refused, and nothing is created.
			keys := len(e.backendKeys())
			rec = e.create("big.mp3", map[string]string{"Upload-Length": "10"}, e.data[:11])
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("a chunk over Upload-Length = %d %s", rec.Code, rec.Body)
			}
			if n := e.count(`SELECT count(*) FROM storage.tus_uploads`); n != 0 || len(e.backendKeys()) != keys {
				t.Errorf("a refused creation left %d uploads, %d keys (had %d)", n, len(e.backendKeys()), keys)
			}

			// A body without the chunk type is not upload data.
			rec = e.create("ignored.mp3", map[string]string{"Upload-Length": "10", "Content-Type": "text/plain"}, e.data[:5])
			if rec.Code != http.StatusCreated || rec.Header().Get("Upload-Offset") != "" {
				t.Errorf("create with a body of another type = %d %v", rec.Code, rec.Header())
			}
			if rec := e.head(rec.Header().Get("Location")); rec.Header().Get("Upload-Offset") != "0" {
				t.Errorf("a body of another type was stored: head = %d %v", rec.Code, rec.Header())
			}

			// An empty file is complete when it is created (tus-js-client
			// sends no PATCH for it).
			rec = e.create("empty.mp3", map[string]string{"Upload-Length": "0"}, nil)
			if rec.Code != http.StatusCreated || rec.Header().Get("Tus-Complete") != "1" {
				t.Fatalf("create an empty file = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			e.sql(`DELETE FROM storage.tus_uploads WHERE name = 'ignored.mp3'`)
			e.stored("empty.mp3", nil)
		})
	}
}

func TestTUSDeferLength(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newTusEnv(t, kind)

			// Exactly one of Upload-Length and Upload-Defer-Length: 1.
			const lengthText = "Upload-Length or Upload-Defer-Length header required\n"
			wantTusText(t, e.create("x.mp3", map[string]string{"Upload-Length": "5", "Upload-Defer-Length": "1"}, nil), 400, lengthText)
			rec := e.do(req{method: "POST", path: "/upload/resumable", token: e.alice, header: map[string]string{
				"Tus-Resumable": "1.0.0", "Upload-Metadata": tusMeta("bucketName", "audio", "objectName", "x.mp3")}})
			wantTusText(t, rec, 400, lengthText)
			wantTusText(t, e.create("x.mp3", map[string]string{"Upload-Defer-Length": "2"}, nil), 400, "Invalid upload-defer-length\n")

			// Deferred: HEAD says so until a PATCH declares the length.
			rec = e.create("later.mp3", map[string]string{"Upload-Defer-Length": "1"}, nil)
			loc := rec.Header().Get("Location")
			if rec.Code != http.StatusCreated || rec.Header().Get("Upload-Expires") == "" {
				t.Fatalf("deferred create = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			rec = e.head(loc)
			if rec.Code != http.StatusOK || rec.Header().Get("Upload-Defer-Length") != "1" || rec.Header().Values("Upload-Length") != nil ||
				rec.Header().Get("Upload-Offset") != "0" {
				t.Fatalf("deferred head = %d %v", rec.Code, rec.Header())
			}
			if rec := e.patch(loc, 0, e.data[:4000], nil); rec.Code != http.StatusNoContent || rec.Header().Get("Upload-Offset") != "4000" ||
				rec.Header().Get("Tus-Complete") != "" {
				t.Fatalf("deferred patch = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			// A length below what is stored, or beyond the bucket's limit, is refused.
			wantTusText(t, e.patch(loc, 4000, nil, map[string]string{"Upload-Length": "3999"}), 400, lengthText)
			if rec := e.patch(loc, 4000, nil, map[string]string{"Upload-Length": "20001"}); rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("declared beyond the limit = %d %s", rec.Code, rec.Body)
			}
			// Without a length, a chunk may not pass the bucket's limit.
			if rec := e.patch(loc, 4000, bytes.Repeat([]byte("x"), 16001), nil); rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("deferred chunk beyond the limit = %d %s", rec.Code, rec.Body)
			}
			rec = e.patch(loc, 4000, e.data[4000:], map[string]string{"Upload-Length": itoa(len(e.data))})
			if rec.Code != http.StatusNoContent || rec.Header().Get("Upload-Offset") != itoa(len(e.data)) || rec.Header().Get("Tus-Complete") != "1" {
				t.Fatalf("declaring patch = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			e.stored("later.mp3", e.data)

			// Deferred with the first bytes in the creation; the length
			// is declared with the last chunk, and only once.
			rec = e.create("both.mp3", map[string]string{"Upload-Defer-Length": "1"}, e.data[:1000])
			loc = rec.Header().Get("Location")
			if rec.Code != http.StatusCreated || rec.Header().Get("Upload-Offset") != "1000" {
				t.Fatalf("deferred create with a chunk = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			if rec := e.patch(loc, 1000, e.data[1000:2000], map[string]string{"Upload-Length": "3000"}); rec.Code != http.StatusNoContent {
				t.Fatalf("declare = %d %s", rec.Code, rec.Body)
			}
			wantTusText(t, e.patch(loc, 2000, nil, map[string]string{"Upload-Length": "3000"}), 400, lengthText)
			if rec := e.patch(loc, 2000, e.data[2000:3000], nil); rec.Code != http.StatusNoContent || rec.Header().Get("Tus-Complete") != "1" {
				t.Fatalf("last chunk = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			e.stored("both.mp3", e.data[:3000])
		})
	}
}

func TestTUSExpiration(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newTusEnv(t, kind)
			rec := e.create("slow.mp3", map[string]string{"Upload-Length": itoa(len(e.data))}, e.data[:1000])
			loc := rec.Header().Get("Location")
			expires, err := http.ParseTime(rec.Header().Get("Upload-Expires"))
			if rec.Code != http.StatusCreated || err != nil {
				t.Fatalf("create = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			// Until it expires the upload goes on, and every answer says when.
			e.clock.add(59 * time.Minute)
			rec = e.patch(loc, 1000, e.data[1000:2000], nil)
			if rec.Code != http.StatusNoContent || rec.Header().Get("Upload-Expires") != expires.Format(http.TimeFormat) {
				t.Fatalf("patch before expiry = %d %v %s", rec.Code, rec.Header(), rec.Body)
			}
			// Past Upload-Expires it is gone, as the reference answers.
			e.clock.add(time.Minute + time.Second)
			wantTusText(t, e.patch(loc, 2000, e.data[2000:3000], nil), http.StatusGone, "The file for this url no longer exists\n")
			if rec := e.head(loc); rec.Code != http.StatusGone {
				t.Errorf("head after expiry = %d", rec.Code)
			}
			if rec := e.get(e.service, "audio", "slow.mp3", nil); rec.Code == http.StatusOK {
				t.Errorf("an expired upload became an object")
			}
			// It can still be terminated.
			if rec := e.do(req{method: "DELETE", path: strings.TrimPrefix(loc, "/storage/v1"), token: e.userToken(alice),
				header: map[string]string{"Tus-Resumable": "1.0.0"}}); rec.Code != http.StatusNoContent {
				t.Errorf("terminate after expiry = %d %s", rec.Code, rec.Body)
			}
		})
	}
}

func TestTUSOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	rec := e.do(req{method: "OPTIONS", path: "/upload/resumable"})
	if rec.Code != http.StatusNoContent || rec.Header().Get("Tus-Resumable") != "1.0.0" || rec.Header().Get("Tus-Version") != "1.0.0" ||
		rec.Header().Get("Tus-Extension") != "creation,creation-with-upload,creation-defer-length,termination,expiration" {
		t.Errorf("OPTIONS = %d %v", rec.Code, rec.Header())
	}
}
