package storage_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/storage"
)

// multipartBody builds what storage-js sends for a Blob: fields first, then
// the file part under the empty field name.
func multipartBody(t *testing.T, fields map[string]string, contentType string, data []byte) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name=""; filename="blob"`)
	h.Set("Content-Type", contentType)
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(data)
	_ = mw.Close()
	return &buf, mw.FormDataContentType()
}

func TestObjects(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testObjects(t, kind)
		})
	}
}

func testObjects(t *testing.T, kind string) {
	e := newEnv(t, kind)
	e.bucket("docs", false)
	data := []byte("hello, basalt")
	sum := md5.Sum(data)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`

	// Raw upload: headers carry type, cache control and user metadata.
	meta := base64.StdEncoding.EncodeToString([]byte(`{"owner":"me"}`))
	rec := e.do(req{method: "POST", path: "/object/docs/dir/a.txt", token: e.service, body: bytes.NewReader(data),
		header: map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Cache-Control": "max-age=3600",
			"x-upsert": "false", "x-metadata": meta}})
	if rec.Code != 200 {
		t.Fatalf("upload = %d %s", rec.Code, rec.Body)
	}
	var up map[string]string
	_ = json.Unmarshal(rec.Body.Bytes(), &up)
	if up["Key"] != "docs/dir/a.txt" || len(up["Id"]) != 36 {
		t.Errorf("upload answer = %v", up)
	}

	// Download with the stored headers.
	rec = e.get(e.service, "docs", "dir/a.txt", nil)
	if rec.Code != 200 || rec.Body.String() != string(data) {
		t.Fatalf("download = %d %q", rec.Code, rec.Body)
	}
	wantHeaders := map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Cache-Control": "max-age=3600",
		"ETag": etag, "Content-Length": "13", "Accept-Ranges": "bytes", "X-Robots-Tag": "none"}
	for k, v := range wantHeaders {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if rec.Header().Get("Last-Modified") == "" {
		t.Error("no Last-Modified")
	}

	// Range, suffix range, unsatisfiable range, conditional request.
	rec = e.get(e.service, "docs", "dir/a.txt", map[string]string{"Range": "bytes=7-12"})
	if rec.Code != 206 || rec.Body.String() != "basalt" || rec.Header().Get("Content-Range") != "bytes 7-12/13" {
		t.Errorf("range = %d %q %q", rec.Code, rec.Body, rec.Header().Get("Content-Range"))
	}
	rec = e.get(e.service, "docs", "dir/a.txt", map[string]string{"Range": "bytes=-6"})
	if rec.Code != 206 || rec.Body.String() != "basalt" {
		t.Errorf("suffix range = %d %q", rec.Code, rec.Body)
	}
	rec = e.get(e.service, "docs", "dir/a.txt", map[string]string{"Range": "bytes=100-"})
	if rec.Code != 416 || rec.Header().Get("Content-Range") != "bytes */13" {
		t.Errorf("unsatisfiable range = %d %v", rec.Code, rec.Header())
	}
	rec = e.get(e.service, "docs", "dir/a.txt", map[string]string{"If-None-Match": etag})
	if rec.Code != 304 || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match = %d", rec.Code)
	}
	rec = e.do(req{method: "GET", path: "/object/docs/dir/a.txt?download=my%20file.txt", token: e.service})
	if got := rec.Header().Get("Content-Disposition"); got != "attachment; filename=my%20file.txt; filename*=UTF-8''my%20file.txt" {
		t.Errorf("Content-Disposition = %q", got)
	}
	rec = e.do(req{method: "HEAD", path: "/object/docs/dir/a.txt", token: e.service})
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "13" {
		t.Errorf("HEAD = %d %q", rec.Code, rec.Header())
	}

	// Info, camel-cased by storage-js.
	rec = e.do(req{method: "GET", path: "/object/info/docs/dir/a.txt", token: e.service})
	var info map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &info)
	if info["name"] != "dir/a.txt" || info["size"] != float64(13) || info["etag"] != etag ||
		info["content_type"] != "text/plain;charset=UTF-8" || info["bucket_id"] != "docs" {
		t.Errorf("info = %v", info)
	}
	if diff := cmp.Diff(map[string]any{"owner": "me"}, info["metadata"]); diff != "" {
		t.Errorf("info metadata (-want +got):\n%s", diff)
	}

	// Multipart upload as storage-js sends a Blob.
	body, ct := multipartBody(t, map[string]string{"cacheControl": "60", "metadata": `{"k":1}`}, "image/png", []byte("PNGDATA"))
	rec = e.do(req{method: "POST", path: "/object/docs/img.png", token: e.service, body: body,
		header: map[string]string{"Content-Type": ct}})
	if rec.Code != 200 {
		t.Fatalf("multipart upload = %d %s", rec.Code, rec.Body)
	}
	rec = e.get(e.service, "docs", "img.png", nil)
	if rec.Body.String() != "PNGDATA" || rec.Header().Get("Content-Type") != "image/png" ||
		rec.Header().Get("Cache-Control") != "max-age=60" {
		t.Errorf("multipart download = %q %v", rec.Body, rec.Header())
	}

	// HTML is served as plain text.
	e.put(e.service, "docs", "x.html", "text/html", []byte("<script>"), false)
	if got := e.get(e.service, "docs", "x.html", nil).Header().Get("Content-Type"); got != "text/plain" {
		t.Errorf("html served as %q", got)
	}

	// Errors.
	wantErr(t, e.put(e.service, "docs", "dir/a.txt", "text/plain", data, false), 400, "409", "KeyAlreadyExists", "The resource already exists")
	wantErr(t, e.put(e.service, "nope", "a.txt", "text/plain", data, false), 400, "404", "NoSuchBucket", "Bucket not found")
	wantErr(t, e.put(e.service, "docs", "caf%C3%A9.txt", "text/plain", data, false), 400, "400", "InvalidKey", "Invalid key: café.txt")
	wantErr(t, e.get(e.service, "docs", "missing.txt", nil), 400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "GET", path: "/object/info/docs/missing.txt", token: e.service}), 400, "404", "NoSuchKey", "Object not found")

	// Upsert replaces the bytes and drops the old version's key.
	if rec := e.put(e.service, "docs", "dir/a.txt", "text/plain", []byte("v2"), true); rec.Code != 200 {
		t.Fatalf("upsert = %d %s", rec.Code, rec.Body)
	}
	if got := e.get(e.service, "docs", "dir/a.txt", nil).Body.String(); got != "v2" {
		t.Errorf("after upsert = %q", got)
	}
	rec = e.do(req{method: "PUT", path: "/object/docs/dir/a.txt", token: e.service, body: strings.NewReader("v3"),
		header: map[string]string{"Content-Type": "text/plain"}})
	if rec.Code != 200 || e.get(e.service, "docs", "dir/a.txt", nil).Body.String() != "v3" {
		t.Errorf("update = %d %s", rec.Code, rec.Body)
	}
	if n := len(e.backendKeys()); n != 3 {
		t.Errorf("backend holds %d keys, want 3 (one per object): %v", n, e.backendKeys())
	}

	// Public and private buckets.
	wantErr(t, e.do(req{method: "GET", path: "/object/public/docs/img.png"}), 400, "404", "NoSuchBucket", "Bucket not found")
	wantErr(t, e.do(req{method: "GET", path: "/object/docs/img.png"}), 400, "404", "NoSuchBucket", "Bucket not found")
	wantErr(t, e.get(e.anon, "docs", "img.png", nil), 400, "404", "NoSuchKey", "Object not found")
	e.ok(req{method: "PUT", path: "/bucket/docs", token: e.service, json: map[string]any{"public": true}})
	if rec := e.do(req{method: "GET", path: "/object/public/docs/img.png"}); rec.Code != 200 || rec.Body.String() != "PNGDATA" {
		t.Errorf("public download = %d %s", rec.Code, rec.Body)
	}
	if rec := e.get(e.anon, "docs", "img.png", nil); rec.Code != 200 {
		t.Errorf("anon download from public bucket = %d %s", rec.Code, rec.Body)
	}
	wantErr(t, e.do(req{method: "GET", path: "/object/public/docs/none.png"}), 400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "GET", path: "/object/public/nobucket/x.png"}), 400, "404", "NoSuchBucket", "Bucket not found")
	if rec := e.do(req{method: "HEAD", path: "/object/public/docs/img.png"}); rec.Code != 200 || rec.Header().Get("Content-Length") != "7" {
		t.Errorf("public HEAD = %d %v", rec.Code, rec.Header())
	}
	// Signing still needs the SELECT policy, public bucket or not.
	wantErr(t, e.do(req{method: "POST", path: "/object/sign/docs/img.png", token: e.anon, json: map[string]any{"expiresIn": 60}}),
		400, "404", "NoSuchKey", "Object not found")

	// Remove many: deleted rows come back, missing names are skipped.
	var removed []map[string]any
	rec = e.do(req{method: "DELETE", path: "/object/docs", token: e.service,
		json: map[string]any{"prefixes": []string{"img.png", "x.html", "never.txt"}}})
	if err := json.Unmarshal(rec.Body.Bytes(), &removed); err != nil || len(removed) != 2 {
		t.Fatalf("remove = %d %s", rec.Code, rec.Body)
	}
	if removed[0]["bucket_id"] != "docs" || removed[0]["metadata"] == nil {
		t.Errorf("removed row = %v", removed[0])
	}
	if n := len(e.backendKeys()); n != 1 {
		t.Errorf("backend keys after remove = %v", e.backendKeys())
	}
	wantErr(t, e.do(req{method: "DELETE", path: "/object/docs", token: e.service, json: map[string]any{"prefixes": make([]string, 1001)}}),
		400, "400", "InvalidRequest", "Bulk object requests are limited to 1000 objects per request.")
	// The same list rules for removal and batch signing, with the schema's wording.
	for _, bad := range []struct {
		path, field string
		body        map[string]any
		msg         string
	}{
		{"/object/docs", "prefixes", map[string]any{}, "body must have required property 'prefixes'"},
		{"/object/docs", "prefixes", map[string]any{"prefixes": []string{}}, "body/prefixes must NOT have fewer than 1 items"},
		{"/object/sign/docs", "paths", map[string]any{"expiresIn": 60}, "body must have required property 'paths'"},
		{"/object/sign/docs", "paths", map[string]any{"expiresIn": 60, "paths": []string{}}, "body/paths must NOT have fewer than 1 items"},
		{"/object/sign/docs", "paths", map[string]any{"expiresIn": 60, "paths": make([]string, 1001)}, "Bulk object requests are limited to 1000 objects per request."},
	} {
		method := "DELETE"
		if bad.field == "paths" {
			method = "POST"
		}
		wantErr(t, e.do(req{method: method, path: bad.path, token: e.service, json: bad.body}), 400, "400", "InvalidRequest", bad.msg)
	}
}

func TestUploadLimits(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind)
			e.bucket("small", false, map[string]any{"file_size_limit": 1000, "allowed_mime_types": []string{"image/*", "text/plain"}})
			big := bytes.Repeat([]byte("x"), 1001)
			wantErr(t, e.put(e.service, "small", "big.txt", "text/plain", big, false), 400, "413", "EntityTooLarge",
				"The object exceeded the maximum allowed size")
			// A body of unknown length is cut off while streaming.
			body, ct := multipartBody(t, nil, "text/plain", big)
			wantErr(t, e.do(req{method: "POST", path: "/object/small/big2.txt", token: e.service, body: body,
				header: map[string]string{"Content-Type": ct}}), 400, "413", "EntityTooLarge", "The object exceeded the maximum allowed size")
			wantErr(t, e.put(e.service, "small", "a.json", "application/json", []byte("{}"), false), 400, "415", "InvalidMimeType",
				"mime type application/json is not supported")
			for _, ok := range []struct{ name, ct string }{{"a.png", "image/png"}, {"b.txt", "text/plain; charset=utf-8"}} {
				if rec := e.put(e.service, "small", ok.name, ok.ct, []byte("ok"), false); rec.Code != 200 {
					t.Errorf("upload %s (%s) = %d %s", ok.name, ok.ct, rec.Code, rec.Body)
				}
			}
			if e.count(`SELECT count(*) FROM storage.objects`) != 2 || len(e.backendKeys()) != 2 {
				t.Errorf("rejected uploads left rows or bytes: %v", e.backendKeys())
			}
		})
	}
}

// patternReader yields n deterministic bytes without holding them.
type patternReader struct{ off, n int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := min(int64(len(b)), p.n-p.off)
	for i := range k {
		b[i] = byte((p.off + i) * 7 % 251)
	}
	p.off += k
	return int(k), nil
}

// TestLargeObject streams a 24 MB object over real HTTP: upload of unknown
// length (chunked), ranged download and full download, checked by MD5.
func TestLargeObject(t *testing.T) {
	t.Parallel()
	const size = 24 << 20
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind, func(c *storage.Config) { c.FileSizeLimit = 100 << 20 })
			e.bucket("media", false)
			srv := httptest.NewServer(e.svc)
			defer srv.Close()

			want := md5.New()
			_, _ = io.Copy(want, &patternReader{n: size})
			// io.MultiReader hides the length, so the upload is chunked.
			hr, _ := http.NewRequest("POST", srv.URL+"/object/media/track.mp3", io.MultiReader(&patternReader{n: size}))
			hr.Header.Set("Authorization", "Bearer "+e.service)
			hr.Header.Set("Content-Type", "audio/mpeg")
			res, err := http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("upload = %d", res.StatusCode)
			}

			hr, _ = http.NewRequest("GET", srv.URL+"/object/media/track.mp3", nil)
			hr.Header.Set("Authorization", "Bearer "+e.service)
			res, err = http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			got := md5.New()
			n, _ := io.Copy(got, res.Body)
			_ = res.Body.Close()
			if n != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Errorf("download: %d bytes, md5 match %v", n, bytes.Equal(got.Sum(nil), want.Sum(nil)))
			}
			if res.Header.Get("ETag") != `"`+hex.EncodeToString(want.Sum(nil))+`"` {
				t.Errorf("ETag = %s", res.Header.Get("ETag"))
			}

			hr.Header.Set("Range", "bytes=20000000-20000009")
			res, err = http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			part, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			wantPart := make([]byte, 10)
			_, _ = io.ReadFull(&patternReader{off: 20000000, n: 20000010}, wantPart)
			if res.StatusCode != 206 || !bytes.Equal(part, wantPart) {
				t.Errorf("range = %d %v, want %v", res.StatusCode, part, wantPart)
			}
		})
	}
}
