package storage_test

import (
	"bytes"
	"encoding/base64"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// tusMeta encodes Upload-Metadata.
func tusMeta(kv ...string) string {
	var parts []string
	for i := 0; i < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

func TestTUS(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testTUS(t, kind)
		})
	}
}

func testTUS(t *testing.T, kind string) {
	e := newEnv(t, kind)
	e.bucket("audio", false, map[string]any{"allowed_mime_types": []string{"audio/*"}})
	e.sql(ownFolderPolicies)
	e.sql(`CREATE POLICY "audio own" ON storage.objects FOR ALL TO authenticated
		USING (bucket_id = 'audio' AND owner_id = auth.uid()::text) WITH CHECK (bucket_id = 'audio')`)
	data := bytes.Repeat([]byte("0123456789"), 1000) // 10 000 bytes in 3 chunks

	create := func(token string, length int, meta string, extra map[string]string) *httptest.ResponseRecorder {
		h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Length": itoa(length), "Upload-Metadata": meta}
		for k, v := range extra {
			h[k] = v
		}
		return e.do(req{method: "POST", path: "/upload/resumable", token: token, header: h})
	}
	patch := func(loc, token string, offset int, chunk []byte, extra map[string]string) *httptest.ResponseRecorder {
		h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Offset": itoa(offset), "Content-Type": "application/offset+octet-stream"}
		for k, v := range extra {
			h[k] = v
		}
		return e.do(req{method: "PATCH", path: strings.TrimPrefix(loc, "/storage/v1"), token: token, body: bytes.NewReader(chunk), header: h})
	}

	meta := tusMeta("bucketName", "audio", "objectName", "song.mp3", "contentType", "audio/mpeg", "cacheControl", "60")
	rec := create(e.alice, len(data), meta, nil)
	loc := rec.Header().Get("Location")
	if rec.Code != 201 || !strings.HasPrefix(loc, "/storage/v1/upload/resumable/") || rec.Header().Get("Tus-Resumable") != "1.0.0" {
		t.Fatalf("create = %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if rec := patch(loc, e.alice, 0, data[:4000], nil); rec.Code != 204 || rec.Header().Get("Upload-Offset") != "4000" {
		t.Fatalf("patch 1 = %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	// A wrong offset conflicts; another user cannot see the upload.
	if rec := patch(loc, e.alice, 0, data[:10], nil); rec.Code != 409 {
		t.Errorf("stale offset = %d %s", rec.Code, rec.Body)
	}
	if rec := patch(loc, e.bob, 4000, data[4000:5000], nil); rec.Code != 404 {
		t.Errorf("bob patch = %d %s", rec.Code, rec.Body)
	}
	rec = e.do(req{method: "HEAD", path: strings.TrimPrefix(loc, "/storage/v1"), token: e.alice})
	if rec.Code != 200 || rec.Header().Get("Upload-Offset") != "4000" || rec.Header().Get("Upload-Length") != "10000" {
		t.Errorf("head = %d %v", rec.Code, rec.Header())
	}
	// The object does not exist until the last chunk arrives.
	wantErr(t, e.get(e.service, "audio", "song.mp3", nil), 400, "404", "NoSuchKey", "Object not found")
	patch(loc, e.alice, 4000, data[4000:8000], nil)
	if rec := patch(loc, e.alice, 8000, data[8000:], nil); rec.Code != 204 || rec.Header().Get("Upload-Offset") != "10000" {
		t.Fatalf("last patch = %d %s", rec.Code, rec.Body)
	}
	rec = e.get(e.alice, "audio", "song.mp3", nil)
	if !bytes.Equal(rec.Body.Bytes(), data) || rec.Header().Get("Content-Type") != "audio/mpeg" || rec.Header().Get("Cache-Control") != "max-age=60" {
		t.Errorf("assembled object = %d bytes, %v", rec.Body.Len(), rec.Header())
	}
	if keys := e.backendKeys(); len(keys) != 1 || e.count(`SELECT count(*) FROM storage.tus_uploads`) != 0 {
		t.Errorf("after finish: keys %v", keys)
	}

	// Creation runs the upload's checks.
	if rec := create(e.alice, 10, meta, nil); rec.Code != 409 {
		t.Errorf("existing key without upsert = %d %s", rec.Code, rec.Body)
	}
	if rec := create(e.alice, 10, tusMeta("bucketName", "audio", "objectName", "x.txt", "contentType", "text/plain"), nil); rec.Code != 415 {
		t.Errorf("wrong type = %d %s", rec.Code, rec.Body)
	}
	if rec := create(e.alice, 100<<20, tusMeta("bucketName", "audio", "objectName", "big.mp3", "contentType", "audio/mpeg"), nil); rec.Code != 413 {
		t.Errorf("too large = %d %s", rec.Code, rec.Body)
	}
	if rec := create(e.anon, 10, tusMeta("bucketName", "audio", "objectName", "anon.mp3", "contentType", "audio/mpeg"), nil); rec.Code != 403 {
		t.Errorf("anon = %d %s", rec.Code, rec.Body)
	}
	if rec := create(e.alice, 10, "", nil); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Metadata header is required") {
		t.Errorf("no metadata = %d %s", rec.Code, rec.Body)
	}
	// Upload-Length is a decimal numeral; one beyond int64 is too large, not malformed.
	bigMeta := tusMeta("bucketName", "audio", "objectName", "huge.mp3", "contentType", "audio/mpeg")
	for length, want := range map[string]int{"+5": 400, "-0": 400, "5 ": 400, "99999999999999999999": 413} {
		h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Length": length, "Upload-Metadata": bigMeta}
		if rec := e.do(req{method: "POST", path: "/upload/resumable", token: e.alice, header: h}); rec.Code != want {
			t.Errorf("Upload-Length %q = %d %s, want %d", length, rec.Code, rec.Body, want)
		}
	}

	// Upsert replaces; termination drops the parts.
	rec = create(e.alice, 3, meta, map[string]string{"x-upsert": "true"})
	loc = rec.Header().Get("Location")
	patch(loc, e.alice, 0, []byte("new"), nil)
	if got := e.get(e.alice, "audio", "song.mp3", nil).Body.String(); got != "new" {
		t.Errorf("after upsert = %q", got)
	}
	rec = create(e.alice, 100, tusMeta("bucketName", "audio", "objectName", "later.mp3", "contentType", "audio/mpeg"), nil)
	loc = rec.Header().Get("Location")
	patch(loc, e.alice, 0, data[:50], nil)
	if rec := e.do(req{method: "DELETE", path: strings.TrimPrefix(loc, "/storage/v1"), token: e.alice}); rec.Code != 204 {
		t.Errorf("terminate = %d", rec.Code)
	}
	if keys := e.backendKeys(); len(keys) != 1 {
		t.Errorf("after terminate: %v", keys)
	}

	// Signed variant: an upload token in x-signature replaces the JWT.
	got := e.ok(req{method: "POST", path: "/object/upload/sign/audio/signed.mp3", token: e.alice, json: map[string]any{}})
	tok := got["token"].(string)
	sig := map[string]string{"x-signature": tok}
	h := map[string]string{"Tus-Resumable": "1.0.0", "Upload-Length": "5", "x-signature": tok,
		"Upload-Metadata": tusMeta("bucketName", "audio", "objectName", "signed.mp3", "contentType", "audio/mpeg")}
	rec = e.do(req{method: "POST", path: "/upload/resumable/sign", header: h})
	loc = rec.Header().Get("Location")
	if rec.Code != 201 || !strings.HasPrefix(loc, "/storage/v1/upload/resumable/sign/") {
		t.Fatalf("signed create = %d %s", rec.Code, rec.Body)
	}
	if rec := patch(loc, "", 0, []byte("hello"), sig); rec.Code != 204 {
		t.Fatalf("signed patch = %d %s", rec.Code, rec.Body)
	}
	if got := e.get(e.service, "audio", "signed.mp3", nil).Body.String(); got != "hello" {
		t.Errorf("signed tus upload = %q", got)
	}
	h["Upload-Metadata"] = tusMeta("bucketName", "audio", "objectName", "other.mp3", "contentType", "audio/mpeg")
	if rec := e.do(req{method: "POST", path: "/upload/resumable/sign", header: h}); rec.Code != 400 {
		t.Errorf("token for another path = %d %s", rec.Code, rec.Body)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
