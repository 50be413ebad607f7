package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/studio"
)

// TestStudioBackups: Studio's Database screen runs `basalt backup`'s code,
// lists the backup, and restores it into a new database and a new store,
// where the rows and the object's bytes are; a database that exists and a
// backup that does not are refused, and every write is audited.
func TestStudioBackups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, storeDir := backupSource(t)
	dataDir := t.TempDir()
	// The embedded cluster's programs run as the postgres user when tests run as root.
	for _, d := range []string{storeDir, dataDir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := storage.ObjectKey("docs", "a.txt", "v1")
	backups, err := newStudioBackups(ctx, db.Admin, dataDir, mapEnv(map[string]string{"STORAGE_FILE_DIR": storeDir}), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := studio.New(ctx, studio.Config{Enabled: true, Host: "127.0.0.1", SessionTTL: time.Hour, SignInMax: 20, SignInWindow: time.Minute,
		StatementTimeout: 5 * time.Second, RowCap: 1000, MaxQueryBytes: 1 << 20}, studio.Deps{Admin: db.Admin, User: db.User, Keys: keys, Backups: backups})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	call := func(method, path, body string, want int, out any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("apikey", keys.ServiceRoleKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
		}
		if out != nil {
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatal(err)
			}
		}
	}

	var list []studio.BackupInfo
	call("GET", "/api/database/backups", "", 200, &list)
	if len(list) != 0 {
		t.Fatalf("backups before any: %+v", list)
	}
	var made studio.BackupInfo
	call("POST", "/api/database/backups", "", 201, &made)
	if made.Objects != 1 || made.ObjectBytes != 5 || made.DatabaseBytes == 0 || !strings.HasPrefix(made.Name, "basalt-backup-") {
		t.Fatalf("backup %+v", made)
	}
	call("GET", "/api/database/backups", "", 200, &list)
	if len(list) != 1 || list[0].Name != made.Name {
		t.Fatalf("backups %+v", list)
	}

	target := "restored_" + strings.ToLower(strings.NewReplacer("-", "_").Replace(filepath.Base(db.Name)))
	t.Cleanup(func() { _, _ = db.Admin.Exec(context.Background(), `DROP DATABASE IF EXISTS `+target+` WITH (FORCE)`) })
	var info studio.RestoreInfo
	call("POST", "/api/database/backups/"+made.Name+"/restore", `{"database": "`+target+`"}`, 200, &info)
	if info.Database != target || info.Storage != filepath.Join(dataDir, "restores", target, "storage") {
		t.Fatalf("restore %+v", info)
	}
	restored, err := pg.Connect(ctx, db.AdminURL, func(c *pgxpool.Config) { c.ConnConfig.Database = target })
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	var body string
	if err := restored.QueryRow(ctx, `SELECT body FROM public.notes WHERE id = 1`).Scan(&body); err != nil || body != "kept" {
		t.Fatalf("restored row %q (%v)", body, err)
	}
	restoredStore, err := fsbackend.New(info.Storage)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := restoredStore.Get(ctx, key, 0, -1)
	if err != nil {
		t.Fatalf("restored object: %v", err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(got) != "hello" {
		t.Fatalf("restored bytes %q", got)
	}

	call("POST", "/api/database/backups/"+made.Name+"/restore", `{"database": "`+target+`"}`, 409, nil)
	call("POST", "/api/database/backups/no-such-backup/restore", `{"database": "other_db"}`, 404, nil)
	call("POST", "/api/database/backups/..%2F..%2Fetc/restore", `{"database": "other_db"}`, 404, nil)
	call("POST", "/api/database/backups/"+made.Name+"/restore", `{"database": "Robert'); DROP"}`, 400, nil)
	var exists bool
	if err := db.Admin.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = 'other_db')`).Scan(&exists); err != nil || exists {
		t.Fatalf("a refused restore left database other_db (%v)", err)
	}
	var trail string
	if err := db.Admin.QueryRow(ctx, `SELECT string_agg(action || ' ' || status, '|' ORDER BY id) FROM basalt.studio_audit WHERE action LIKE 'backup.%'`).Scan(&trail); err != nil {
		t.Fatal(err)
	}
	if want := "backup.run 201|backup.restore 200|backup.restore 409|backup.restore 404|backup.restore 404|backup.restore 400"; trail != want {
		t.Fatalf("audit %s, want %s", trail, want)
	}
}

// withDatabase names the new database in either form of connection string,
// keeping every other setting (pg_restore connects with the string alone).
func TestWithDatabase(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@/old?host=%2Frun%2Fpg&sslmode=disable": "postgres://u:p@/restored?host=%2Frun%2Fpg&sslmode=disable",
		"postgresql://u@h:5432/old?dbname=old":                 "postgresql://u@h:5432/restored",
		"host=/run/pg user=u dbname=old":                       "host=/run/pg user=u dbname=old dbname=restored",
	} {
		got, err := withDatabase(in, "restored")
		if err != nil || got != want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
