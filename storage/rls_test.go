package storage_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// ownFolderPolicies are the typical Supabase policies: each user owns the
// folder named after their id.
const ownFolderPolicies = `
CREATE POLICY "own folder select" ON storage.objects FOR SELECT TO authenticated
	USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY "own folder insert" ON storage.objects FOR INSERT TO authenticated
	WITH CHECK (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY "own folder update" ON storage.objects FOR UPDATE TO authenticated
	USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text)
	WITH CHECK (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY "own folder delete" ON storage.objects FOR DELETE TO authenticated
	USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);`

func TestPolicies(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testPolicies(t, kind)
		})
	}
}

func testPolicies(t *testing.T, kind string) {
	e := newEnv(t, kind)
	e.bucket("private", false)
	e.sql(ownFolderPolicies)
	aliceFile := alice + "/a.txt"

	// Writes: own folder yes, someone else's no, anon no.
	if rec := e.put(e.alice, "private", aliceFile, "text/plain", []byte("alice"), false); rec.Code != 200 {
		t.Fatalf("alice upload = %d %s", rec.Code, rec.Body)
	}
	var ownerID string
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT owner_id FROM storage.objects WHERE name = $1`, aliceFile).Scan(&ownerID); err != nil || ownerID != alice {
		t.Errorf("owner_id = %q, %v", ownerID, err)
	}
	rls := "new row violates row-level security policy"
	wantErr(t, e.put(e.alice, "private", bob+"/x.txt", "text/plain", []byte("x"), false), 400, "403", "AccessDenied", rls)
	wantErr(t, e.put(e.anon, "private", alice+"/y.txt", "text/plain", []byte("x"), false), 400, "403", "AccessDenied", rls)
	wantErr(t, e.put(e.bob, "private", aliceFile, "text/plain", []byte("x"), true), 400, "403", "AccessDenied", rls)
	if rec := e.put(e.alice, "private", aliceFile, "text/plain", []byte("alice v2"), true); rec.Code != 200 {
		t.Errorf("alice upsert = %d %s", rec.Code, rec.Body)
	}
	if rec := e.put(e.bob, "private", bob+"/b.txt", "text/plain", []byte("bob"), false); rec.Code != 200 {
		t.Fatalf("bob upload = %d %s", rec.Code, rec.Body)
	}

	// Reads: invisible rows are not found, never 403.
	if got := e.get(e.alice, "private", aliceFile, nil).Body.String(); got != "alice v2" {
		t.Errorf("alice reads %q", got)
	}
	wantErr(t, e.get(e.bob, "private", aliceFile, nil), 400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "GET", path: "/object/info/private/" + aliceFile, token: e.bob}), 400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "GET", path: "/object/authenticated/private/" + aliceFile, token: e.anon}), 400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "POST", path: "/object/sign/private/" + aliceFile, token: e.bob, json: map[string]any{"expiresIn": 60}}),
		400, "404", "NoSuchKey", "Object not found")

	// Listing shows only what SELECT allows.
	list := func(token, prefix string) []string {
		rec := e.do(req{method: "POST", path: "/object/list/private", token: token, json: map[string]any{"prefix": prefix}})
		var rows []map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &rows); err != nil {
			t.Fatalf("list = %d %s", rec.Code, rec.Body)
		}
		names := []string{}
		for _, r := range rows {
			names = append(names, r["name"].(string))
		}
		return names
	}
	if diff := cmp.Diff([]string{alice}, list(e.alice, "")); diff != "" {
		t.Errorf("alice lists root (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a.txt"}, list(e.alice, alice)); diff != "" {
		t.Errorf("alice lists her folder (-want +got):\n%s", diff)
	}
	if got := list(e.bob, alice); len(got) != 0 {
		t.Errorf("bob lists alice's folder: %v", got)
	}

	// Remove: bob's attempt on alice's file is silently skipped.
	rec := e.do(req{method: "DELETE", path: "/object/private", token: e.bob, json: map[string]any{"prefixes": []string{aliceFile}}})
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != "[]" {
		t.Errorf("bob removes alice's = %d %s", rec.Code, rec.Body)
	}
	if e.count(`SELECT count(*) FROM storage.objects WHERE name = $1`, aliceFile) != 1 {
		t.Error("alice's file was deleted by bob")
	}

	// Move: into bob's folder fails WITH CHECK; within her folder works.
	wantErr(t, e.do(req{method: "POST", path: "/object/move", token: e.alice,
		json: map[string]any{"bucketId": "private", "sourceKey": aliceFile, "destinationKey": bob + "/stolen.txt"}}),
		400, "403", "AccessDenied", rls)
	wantErr(t, e.do(req{method: "POST", path: "/object/move", token: e.bob,
		json: map[string]any{"bucketId": "private", "sourceKey": aliceFile, "destinationKey": bob + "/stolen.txt"}}),
		400, "404", "NoSuchKey", "Object not found")
	got := e.ok(req{method: "POST", path: "/object/move", token: e.alice,
		json: map[string]any{"bucketId": "private", "sourceKey": aliceFile, "destinationKey": alice + "/moved.txt"}})
	if got["message"] != "Successfully moved" || got["Key"] != alice+"/moved.txt" {
		t.Errorf("move = %v", got)
	}
	if body := e.get(e.alice, "private", alice+"/moved.txt", nil).Body.String(); body != "alice v2" {
		t.Errorf("moved content = %q", body)
	}
	// Copy: bob cannot copy alice's file (SELECT), nor into her folder (INSERT).
	wantErr(t, e.do(req{method: "POST", path: "/object/copy", token: e.bob,
		json: map[string]any{"bucketId": "private", "sourceKey": alice + "/moved.txt", "destinationKey": bob + "/c.txt"}}),
		400, "404", "NoSuchKey", "Object not found")
	wantErr(t, e.do(req{method: "POST", path: "/object/copy", token: e.bob,
		json: map[string]any{"bucketId": "private", "sourceKey": bob + "/b.txt", "destinationKey": alice + "/c.txt"}}),
		400, "403", "AccessDenied", rls)
	got = e.ok(req{method: "POST", path: "/object/copy", token: e.alice,
		json: map[string]any{"bucketId": "private", "sourceKey": alice + "/moved.txt", "destinationKey": alice + "/copy.txt"}})
	if got["Key"] != "private/"+alice+"/copy.txt" {
		t.Errorf("copy = %v", got)
	}
	if body := e.get(e.alice, "private", alice+"/copy.txt", nil).Body.String(); body != "alice v2" {
		t.Errorf("copied content = %q", body)
	}
	// Every row has exactly its bytes: moved, copied, bob's.
	if keys := e.backendKeys(); len(keys) != 3 {
		t.Errorf("backend keys = %v", keys)
	}
	// Alice removes her own.
	rec = e.do(req{method: "DELETE", path: "/object/private", token: e.alice,
		json: map[string]any{"prefixes": []string{alice + "/moved.txt", alice + "/copy.txt"}}})
	var removed []any
	if err := json.Unmarshal(rec.Body.Bytes(), &removed); err != nil || len(removed) != 2 {
		t.Errorf("alice remove = %s", rec.Body)
	}
}

func TestHelperFunctions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	var folders []string
	var file, ext, noExt string
	err := pg.AsCaller(context.Background(), e.db.User, pg.Caller{Role: "anon"}, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), `SELECT storage.foldername('a/b/c.tar.gz'),
			storage.filename('a/b/c.tar.gz'), storage.extension('a/b/c.tar.gz'), storage.extension('README')`).
			Scan(&folders, &file, &ext, &noExt)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{[]string{"a", "b"}, "c.tar.gz", "gz", "README"}, []any{folders, file, ext, noExt}); diff != "" {
		t.Errorf("helpers (-want +got):\n%s", diff)
	}
	// Direct deletes are refused, so rows and bytes cannot drift apart.
	e.bucket("b", false)
	_, err = e.db.Admin.Exec(context.Background(), `DELETE FROM storage.buckets WHERE id = 'b'`)
	if err == nil || !strings.Contains(err.Error(), "Direct deletion from storage tables is not allowed") {
		t.Errorf("direct delete: %v", err)
	}
}
