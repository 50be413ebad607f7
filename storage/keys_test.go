package storage_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Names an object may not get: longer than maxKeyBytes (S3's limit on a
// key, which the reference inherits from its store), or with a "." or ".."
// segment (the reference's path rule). Every way of naming an object
// refuses them with the reference's InvalidKey before anything is stored.
func TestInvalidNewKeys(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind)
			e.bucket("docs", false)
			e.put(e.service, "docs", "src.txt", "text/plain", []byte("source"), false)
			long := strings.Repeat("a", 2000)
			names := []string{long, strings.Repeat("abcd/", 205), "a/../b", "..", "../x", "x/..", "a/./b", "./a"}
			for _, name := range names {
				short := name
				if len(short) > 40 {
					short = short[:40] + "…"
				}
				check := func(what string, rec *httptest.ResponseRecorder) {
					t.Helper()
					wantErr(t, rec, 400, "400", "InvalidKey", "Invalid key: "+name)
					if t.Failed() {
						t.Fatalf("%s %q", what, short)
					}
				}
				check("upload", e.put(e.service, "docs", name, "text/plain", []byte("x"), false))
				check("upsert", e.put(e.service, "docs", name, "text/plain", []byte("x"), true))
				for _, op := range []string{"copy", "move"} {
					check(op, e.do(req{method: "POST", path: "/object/" + op, token: e.service,
						json: map[string]any{"bucketId": "docs", "sourceKey": "src.txt", "destinationKey": name}}))
				}
				check("sign upload", e.do(req{method: "POST", path: "/object/upload/sign/docs/" + name, token: e.service, json: map[string]any{}}))
				check("tus create", e.do(req{method: "POST", path: "/upload/resumable", token: e.service,
					header: map[string]string{"Tus-Resumable": "1.0.0", "Upload-Length": "1",
						"Upload-Metadata": tusMeta("bucketName", "docs", "objectName", name)}}))
			}
			// Nothing of them was stored; the source is still there.
			if n := e.count(`SELECT count(*) FROM storage.objects`); n != 1 {
				t.Errorf("%d objects, want only the source", n)
			}
			if n := e.count(`SELECT count(*) FROM storage.tus_uploads`); n != 0 {
				t.Errorf("%d uploads created", n)
			}
			if keys := e.backendKeys(); len(keys) != 1 {
				t.Errorf("backend keys %v, want the source's", keys)
			}

			// Long names the store can hold are accepted, and dots inside a
			// segment are names.
			long = strings.Repeat(strings.Repeat("b", 200)+"/", 4) + "end"
			for _, name := range []string{long, "a/..b/c..", ".hidden/x.", "..a"} {
				if rec := e.put(e.service, "docs", name, "text/plain", []byte("x"), false); rec.Code != http.StatusOK {
					t.Errorf("upload %.40q = %d %s", name, rec.Code, rec.Body)
				}
			}
		})
	}
}

// A name the store cannot hold is the client's InvalidKey, not a server
// error: on disk a segment past the file system's limit on a file name,
// in S3 a key past 1024 bytes once the bucket and version are added. The
// longest name (1024 bytes) fits on disk in shorter segments.
func TestKeyTooLongForTheBackend(t *testing.T) {
	t.Parallel()
	for kind, name := range map[string]string{"fs": strings.Repeat("x", 300), "s3": strings.Repeat("x/", 500)} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, kind)
			e.bucket("docs", false)
			e.put(e.service, "docs", "src.txt", "text/plain", []byte("source"), false)
			wantErr(t, e.put(e.service, "docs", name, "text/plain", []byte("x"), false), 400, "400", "InvalidKey", "Invalid key: "+name)
			wantErr(t, e.do(req{method: "POST", path: "/object/copy", token: e.service,
				json: map[string]any{"bucketId": "docs", "sourceKey": "src.txt", "destinationKey": name}}), 400, "400", "InvalidKey", "Invalid key: "+name)
			if keys := e.backendKeys(); len(keys) != 1 {
				t.Errorf("backend keys %v", keys)
			}
		})
	}
	e := newEnv(t, "fs")
	e.bucket("docs", false)
	longest := strings.Repeat(strings.Repeat("b", 200)+"/", 5) + strings.Repeat("c", 19)
	if rec := e.put(e.service, "docs", longest, "text/plain", []byte("x"), false); rec.Code != http.StatusOK {
		t.Errorf("upload of a 1024-byte name = %d %s", rec.Code, rec.Body)
	}
	if rec := e.put(e.service, "docs", longest+"d", "text/plain", []byte("x"), false); rec.Code != http.StatusBadRequest {
		t.Errorf("upload of a 1025-byte name = %d %s", rec.Code, rec.Body)
	}
	// TUS keeps its chunks under keys of their own, whatever the name's length.
	name := strings.Repeat("y/", 100) + "z.txt"
	h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Length": "5", "Content-Type": "application/offset+octet-stream",
		"Upload-Metadata": tusMeta("bucketName", "docs", "objectName", name)}
	rec := e.do(req{method: "POST", path: "/upload/resumable", token: e.service, header: h, body: bytes.NewReader([]byte("hello"))})
	if rec.Code != http.StatusCreated || rec.Header().Get("Tus-Complete") != "1" {
		t.Fatalf("tus with a long name = %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if got := e.get(e.service, "docs", name, nil).Body.String(); got != "hello" {
		t.Errorf("tus object = %q", got)
	}
}
