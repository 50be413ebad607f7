package storage_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/jwt"
)

// foreignKey is a service_role key signed with another project's secret.
func foreignKey(t *testing.T) string {
	k, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return k.ServiceRoleKey
}

func TestBuckets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")

	// Create, with a size limit in decimal units and a MIME list with an
	// empty entry that is dropped.
	got := e.ok(req{method: "POST", path: "/bucket", token: e.service,
		json: map[string]any{"id": "avatars", "name": "avatars", "public": false, "file_size_limit": "20mb",
			"allowed_mime_types": []string{"image/png", "", "image/*"}}})
	if diff := cmp.Diff(map[string]any{"name": "avatars"}, got); diff != "" {
		t.Errorf("create (-want +got):\n%s", diff)
	}

	rec := e.do(req{method: "GET", path: "/bucket/avatars", token: e.service})
	var b map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b["file_size_limit"] != float64(20000000) || b["public"] != false || b["owner"] != "" {
		t.Errorf("get bucket = %v", b)
	}
	if _, ok := b["type"]; ok {
		t.Errorf("get bucket has type: %v", b)
	}
	if diff := cmp.Diff([]any{"image/png", "image/*"}, b["allowed_mime_types"]); diff != "" {
		t.Errorf("allowed_mime_types (-want +got):\n%s", diff)
	}

	// Tokens from a clock an hour ahead, signed with the project's secret.
	future := func(claim string) string {
		tok, err := e.keys.SignHS256(gojwt.MapClaims{"role": "service_role", claim: e.clock.now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tests := []struct {
		name             string
		r                req
		httpStatus       int
		statusCode, code string
		message          string
	}{
		{"duplicate id", req{method: "POST", path: "/bucket", token: e.service, json: map[string]any{"name": "avatars"}},
			400, "409", "BucketAlreadyExists", "The resource already exists"},
		{"bad name", req{method: "POST", path: "/bucket", token: e.service, json: map[string]any{"name": "a/b"}},
			400, "400", "InvalidBucketName", "Bucket name invalid"},
		{"bad size", req{method: "POST", path: "/bucket", token: e.service, json: map[string]any{"name": "x", "file_size_limit": "20 parsecs"}},
			400, "400", "InvalidRequest", "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B"},
		{"missing bucket", req{method: "GET", path: "/bucket/nope", token: e.service},
			400, "404", "NoSuchBucket", "Bucket not found"},
		{"no token", req{method: "GET", path: "/bucket"},
			400, "403", "AccessDenied", "Invalid Compact JWS"},
		{"malformed token", req{method: "GET", path: "/bucket", token: "a.b.c"},
			400, "403", "AccessDenied", "Invalid Compact JWS"},
		{"foreign token", req{method: "GET", path: "/bucket", token: foreignKey(t)},
			400, "403", "AccessDenied", "signature verification failed"},
		{"token not yet valid", req{method: "GET", path: "/bucket", token: future("nbf")},
			400, "403", "AccessDenied", `"nbf" claim timestamp check failed`},
		{"token issued in the future", req{method: "GET", path: "/bucket", token: future("iat")},
			400, "403", "AccessDenied", `"iat" claim timestamp check failed (it should be in the past)`},
		{"update nothing", req{method: "PUT", path: "/bucket/avatars", token: e.service, json: map[string]any{"id": "avatars"}},
			400, "400", "InvalidRequest", "No content provided"},
		{"update missing", req{method: "PUT", path: "/bucket/nope", token: e.service, json: map[string]any{"public": true}},
			400, "404", "NoSuchBucket", "Bucket not found"},
		{"authenticated create without policy", req{method: "POST", path: "/bucket", token: e.alice, json: map[string]any{"name": "mine"}},
			400, "403", "AccessDenied", "new row violates row-level security policy"},
		{"empty as user is a real 403", req{method: "POST", path: "/bucket/avatars/empty", token: e.alice, json: map[string]any{}},
			403, "403", "AccessDenied", "Access denied: Invalid role"},
		{"unknown route", req{method: "GET", path: "/nothing/here", token: e.service},
			404, "404", "InvalidRequest", "Route GET:/nothing/here not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, e.do(tt.r), tt.httpStatus, tt.statusCode, tt.code, tt.message)
		})
	}

	// Without a SELECT policy, users see no buckets; service_role sees all.
	if rec := e.do(req{method: "GET", path: "/bucket", token: e.alice}); rec.Body.String() != "[]\n" {
		t.Errorf("list as alice = %s, want []", rec.Body)
	}
	e.sql(`CREATE POLICY "read public buckets" ON storage.buckets FOR SELECT TO authenticated USING (public)`)
	e.ok(req{method: "PUT", path: "/bucket/avatars", token: e.service, json: map[string]any{"public": true, "file_size_limit": nil}})
	var list []map[string]any
	rec = e.do(req{method: "GET", path: "/bucket?sortColumn=name&sortOrder=desc&limit=10", token: e.alice})
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list) != 1 || list[0]["id"] != "avatars" ||
		list[0]["type"] != "STANDARD" || list[0]["file_size_limit"] != nil {
		t.Errorf("list as alice = %s", rec.Body)
	}

	// A non-empty bucket cannot be deleted; empty is service-role only.
	if rec := e.put(e.service, "avatars", "a.png", "image/png", []byte("png"), false); rec.Code != 200 {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	wantErr(t, e.do(req{method: "DELETE", path: "/bucket/avatars", token: e.service, json: map[string]any{}}),
		400, "409", "ResourceNotEmpty", "The bucket you tried to delete is not empty")
	got = e.ok(req{method: "POST", path: "/bucket/avatars/empty", token: e.service, json: map[string]any{}})
	if got["message"] != "Empty bucket has been queued. Completion may take up to an hour." {
		t.Errorf("empty = %v", got)
	}
	if keys := e.backendKeys(); len(keys) != 0 {
		t.Errorf("bytes left after empty: %v", keys)
	}
	got = e.ok(req{method: "DELETE", path: "/bucket/avatars", token: e.service, json: map[string]any{}})
	if got["message"] != "Successfully deleted" {
		t.Errorf("delete = %v", got)
	}
	wantErr(t, e.do(req{method: "DELETE", path: "/bucket/avatars", token: e.service}), http.StatusBadRequest,
		"404", "NoSuchBucket", "Bucket not found")
}
