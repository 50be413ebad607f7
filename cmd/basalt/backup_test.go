package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
)

// backupSource is a project to back up (skipping without PostgreSQL's
// programs): public.notes with one row, and bucket docs with a.txt
// ("hello") in a file store, whose folder it returns.
func backupSource(t *testing.T) (*pgtest.DB, string) {
	t.Helper()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx := context.Background()
	src := pgtest.NewDB(t)
	srcStore := t.TempDir()
	fs, err := fsbackend.New(srcStore)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Admin.Exec(ctx, `
		CREATE TABLE public.notes (id int PRIMARY KEY, body text);
		INSERT INTO public.notes VALUES (1, 'kept');
		INSERT INTO storage.buckets (id, name) VALUES ('docs', 'docs');
		INSERT INTO storage.objects (bucket_id, name, version, metadata)
		  VALUES ('docs', 'a.txt', 'v1', '{"size": 5, "mimetype": "text/plain"}')`); err != nil {
		t.Fatal(err)
	}
	if err := fs.Put(ctx, storage.ObjectKey("docs", "a.txt", "v1"), strings.NewReader("hello"), 5, "text/plain"); err != nil {
		t.Fatal(err)
	}
	return src, srcStore
}

// TestBackupRestoreCommands backs up a DATABASE_URL project with file
// storage, restores it into a new embedded cluster (--data-dir), and backs
// that up again: the second backup lists the same objects with the same
// checksums, and the restored bytes sit where basalt dev reads them.
func TestBackupRestoreCommands(t *testing.T) {
	ctx := context.Background()
	src, srcStore := backupSource(t)
	tmp, err := os.MkdirTemp("", "bbak")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	// The embedded cluster runs as the postgres user when tests run as root.
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(tmp, "first.tar.gz")
	serveVars := map[string]string{"DATABASE_URL": src.AdminURL, "STORAGE_FILE_DIR": srcStore}
	var out bytes.Buffer
	if err := run(ctx, []string{"backup", "--out", archive}, &out, io.Discard, mapEnv(serveVars)); err != nil {
		t.Fatalf("backup: %v", err)
	}
	if !strings.Contains(out.String(), "backup written to "+archive) || !strings.Contains(out.String(), "1 storage objects (5 bytes)") {
		t.Errorf("backup output:\n%s", out.String())
	}

	// A non-empty target is refused with the reason.
	err = run(ctx, []string{"restore", "--from", archive}, io.Discard, io.Discard,
		mapEnv(map[string]string{"DATABASE_URL": src.AdminURL, "STORAGE_FILE_DIR": t.TempDir()}))
	if !errors.Is(err, backup.ErrNotEmpty) || !strings.Contains(err.Error(), "already has schema auth") {
		t.Errorf("restore over the source: %v, want a not-empty refusal", err)
	}

	dataDir := filepath.Join(tmp, "data")
	devVars := map[string]string{"BASALT_DB_PORT": freePort(t)}
	out.Reset()
	if err := run(ctx, []string{"restore", "--from", archive, "--data-dir", dataDir}, &out, io.Discard, mapEnv(devVars)); err != nil {
		t.Fatalf("restore into the embedded cluster: %v", err)
	}
	if !strings.Contains(out.String(), "checksums verified") {
		t.Errorf("restore output:\n%s", out.String())
	}
	restored, err := fsbackend.New(filepath.Join(dataDir, "storage"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := restored.Get(ctx, storage.ObjectKey("docs", "a.txt", "v1"), 0, -1)
	if err != nil {
		t.Fatalf("restored bytes: %v", err)
	}
	b, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(b) != "hello" {
		t.Errorf("restored bytes = %q", b)
	}

	// Back up the embedded cluster again, to the default place.
	if err := run(ctx, []string{"backup", "--data-dir", dataDir}, io.Discard, io.Discard, mapEnv(devVars)); err != nil {
		t.Fatalf("backup of the embedded cluster: %v", err)
	}
	again, _ := filepath.Glob(filepath.Join(dataDir, "backups", "basalt-backup-*"))
	if len(again) != 1 {
		t.Fatalf("default backup location holds %v", again)
	}
	first, second := readManifest(t, archive), readManifest(t, again[0])
	if len(second.Objects) != 1 || second.Objects[0] != first.Objects[0] ||
		len(second.Migrations) == 0 || second.Migrations[0] != first.Migrations[0] {
		t.Errorf("backups differ:\nfirst  %+v %+v\nsecond %+v %+v", first.Objects, first.Migrations, second.Objects, second.Migrations)
	}

	var ue usageError
	if err := run(ctx, []string{"restore"}, io.Discard, io.Discard, mapEnv(nil)); !errors.As(err, &ue) {
		t.Errorf("restore without --from: %v, want a usage error", err)
	}
}

func mapEnv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func readManifest(t *testing.T, from string) *backup.Manifest {
	t.Helper()
	m, err := backup.ReadManifest(from)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
