package backup_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestRoundTrip backs up a seeded Backline project into a gzipped tar and
// restores it into a fresh cluster (no Basalt roles yet) and an empty
// storage directory: every table has the same rows, the money adds up the
// same, every object's bytes are identical and served by the storage API.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := seededProject(t)
	out := filepath.Join(t.TempDir(), "backline.tar.gz")
	m, err := backup.Backup(ctx, src.target(), out, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	srcSums := src.objectSums()
	if len(m.Objects) != len(srcSums) || len(srcSums) < 5 {
		t.Fatalf("manifest lists %d objects, source has %d", len(m.Objects), len(srcSums))
	}
	for _, o := range m.Objects {
		if o.SHA256 != srcSums[o.Bucket+"/"+o.Name] || o.Missing || o.Version == "" {
			t.Errorf("manifest object %+v, source bytes sha256 %s", o, srcSums[o.Bucket+"/"+o.Name])
		}
	}
	sources := map[string]string{}
	for _, mg := range m.Migrations {
		sources[mg.Source] = mg.Version
	}
	if sources["platform"] == "" || sources["app"] == "" || m.BasaltVersion != "v-test" ||
		time.Since(m.CreatedAt) > time.Hour || m.Database.SHA256 == "" {
		t.Errorf("manifest header = %+v (migrations %v)", m, m.Migrations)
	}

	admin, userURL := newCluster(t)
	dst := newProject(t, admin, nil)
	if _, err := backup.Restore(ctx, dst.target(), out); err != nil {
		t.Fatal(err)
	}
	// authenticator did not exist in the new cluster: restore created it,
	// and requests now reach the data through it.
	user, err := pg.Connect(ctx, userURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	dst.open(user)

	counts := tableCounts(t, src.admin)
	for _, tb := range []string{"public.wallets", "public.transactions", "auth.users", "storage.objects", "public.tracks"} {
		if counts[tb] == 0 {
			t.Errorf("source %s is empty; the seed should fill it", tb)
		}
	}
	if diff := cmp.Diff(counts, tableCounts(t, dst.admin)); diff != "" {
		t.Errorf("row counts differ (-source +restored):\n%s", diff)
	}
	for _, q := range []string{
		`SELECT sum(amount)::text FROM public.transactions`,
		`SELECT sum(balance)::text FROM public.wallets`,
		`SELECT sum(balance)::text FROM public.wallets WHERE kind = 'user'`,
		`SELECT string_agg(id || '=' || balance, ',' ORDER BY id) FROM public.wallets`,
	} {
		if a, b := scalar[string](t, src.admin, q), scalar[string](t, dst.admin, q); a != b {
			t.Errorf("%s: source %s, restored %s", q, a, b)
		}
	}
	for _, q := range []string{`SELECT * FROM public.transactions`, `SELECT * FROM public.wallets`,
		`SELECT * FROM auth.users`, `SELECT * FROM storage.objects`, `SELECT * FROM basalt.schema_migrations`} {
		if a, b := fingerprint(t, src.admin, q), fingerprint(t, dst.admin, q); a != b {
			t.Errorf("%s: contents differ", q)
		}
	}
	if diff := cmp.Diff(srcSums, dst.objectSums()); diff != "" {
		t.Errorf("object bytes differ (-source +restored):\n%s", diff)
	}
	for _, k := range []string{"docs/5eed/notes/first draft.txt", "docs/empty.txt"} {
		bucket, name, _ := strings.Cut(k, "/")
		if a, b := src.download(bucket, name), dst.download(bucket, name); string(a) != string(b) {
			t.Errorf("%s: source %q, restored %q", k, a, b)
		}
	}
	// The roles came back with the attributes and settings grants and
	// requests depend on.
	if got := scalar[string](t, dst.admin, `SELECT concat_ws(' ',
		(SELECT rolbypassrls FROM pg_roles WHERE rolname = 'service_role'),
		(SELECT rolcanlogin AND NOT rolinherit FROM pg_roles WHERE rolname = 'authenticator'),
		(SELECT array_to_string(setconfig, ',') FROM pg_db_role_setting WHERE setrole = 'anon'::regrole AND setdatabase = 0),
		(SELECT pg_has_role('authenticator', 'authenticated', 'MEMBER')))`); got != "t t statement_timeout=3s t" {
		t.Errorf("restored roles = %q", got)
	}
}

// TestBackupExcludesLaterWrites writes an object and a row after the
// snapshot is taken: the source has them, the backup does not.
func TestBackupExcludesLaterWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := seededProject(t)
	before := scalar[int64](t, src.admin, `SELECT count(*) FROM storage.objects`)
	late := backup.WithAfterSnapshot(src.target(), func(ctx context.Context) error {
		src.upload("docs", "late.txt", "text/plain", []byte("written after the snapshot"))
		src.upload("covers", "late.jpg", "image/jpeg", []byte("late cover"))
		_, err := src.admin.Exec(ctx, `INSERT INTO public.early_access_subscribers (email, role) VALUES ('late@backline.test', 'fan')`)
		return err
	})
	out := filepath.Join(t.TempDir(), "backup")
	m, err := backup.Backup(ctx, late, out, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	if n := scalar[int64](t, src.admin, `SELECT count(*) FROM storage.objects WHERE name IN ('late.txt', 'late.jpg')`); n != 2 {
		t.Fatalf("source has %d late objects, want 2 (the hook's writes committed)", n)
	}
	if int64(len(m.Objects)) != before {
		t.Errorf("manifest lists %d objects, %d existed at the snapshot", len(m.Objects), before)
	}
	for _, o := range m.Objects {
		if strings.HasPrefix(o.Name, "late.") {
			t.Errorf("manifest lists %s/%s, written after the snapshot", o.Bucket, o.Name)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(out, "objects", "*", "*"))
	lateSums := map[string]bool{sha([]byte("written after the snapshot")): true, sha([]byte("late cover")): true}
	for _, e := range entries {
		if lateSums[filepath.Base(e)] {
			t.Errorf("backup holds the bytes of a late object: %s", e)
		}
	}

	db := pgtest.NewEmptyDB(t)
	dst := newProject(t, db.Admin, nil)
	if _, err := backup.Restore(ctx, dst.target(), out); err != nil {
		t.Fatal(err)
	}
	if got := scalar[string](t, dst.admin, `SELECT concat_ws(' ',
		(SELECT count(*) FROM storage.objects), (SELECT count(*) FROM storage.objects WHERE name LIKE 'late.%'),
		(SELECT count(*) FROM public.early_access_subscribers WHERE email = 'late@backline.test'))`); got != strconv.FormatInt(before, 10)+" 0 0" {
		t.Errorf("restored objects, late objects, late rows = %q", got)
	}
}

// TestBackupRetriesWhenObjectReplaced replaces an object after the first
// snapshot, so the bytes that snapshot's row names are deleted before they
// can be copied: the backup starts over and records the new version.
func TestBackupRetriesWhenObjectReplaced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	src := newProject(t, db.Admin, db.User)
	src.exec(`INSERT INTO storage.buckets (id, name) VALUES ('docs', 'docs')`)
	src.upload("docs", "a.txt", "text/plain", []byte("first"))
	src.upload("docs", "b.txt", "text/plain", []byte("unchanged"))
	calls := 0
	tgt := backup.WithAfterSnapshot(src.target(), func(context.Context) error {
		calls++
		if calls == 1 {
			src.upload("docs", "a.txt", "text/plain", []byte("second"))
		}
		return nil
	})
	m, err := backup.Backup(ctx, tgt, filepath.Join(t.TempDir(), "b.tar"), "v-test")
	if err != nil {
		t.Fatal(err)
	}
	version := scalar[string](t, src.admin, `SELECT version FROM storage.objects WHERE name = 'a.txt'`)
	got := map[string]backup.Object{}
	for _, o := range m.Objects {
		got[o.Name] = o
	}
	if calls != 2 || got["a.txt"].SHA256 != sha([]byte("second")) || got["a.txt"].Version != version ||
		got["b.txt"].SHA256 != sha([]byte("unchanged")) {
		t.Errorf("after %d snapshots the manifest has %+v, want a.txt = second (version %s)", calls, m.Objects, version)
	}
}

// TestRestoreRefusesNonEmptyTarget: a database with anything in it, or an
// object store with bytes, is refused before anything is written; so is a
// backup whose files do not match the manifest.
func TestRestoreRefusesNonEmptyTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	src := newProject(t, db.Admin, db.User)
	src.exec(`INSERT INTO storage.buckets (id, name) VALUES ('docs', 'docs')`)
	src.upload("docs", "a.txt", "text/plain", []byte("some bytes"))
	out := filepath.Join(t.TempDir(), "backup")
	if _, err := backup.Backup(ctx, src.target(), out, "v-test"); err != nil {
		t.Fatal(err)
	}
	emptyStore := func(p *project) bool {
		n := 0
		_ = p.store.Walk(ctx, "", func(string, time.Time) error { n++; return nil })
		return n == 0
	}
	schemas := func(p *project) int64 {
		return scalar[int64](t, p.admin, `SELECT count(*) FROM pg_namespace WHERE nspname IN ('auth', 'storage', 'basalt')`)
	}

	t.Run("database", func(t *testing.T) {
		migrated := pgtest.NewDB(t)
		dst := newProject(t, migrated.Admin, nil)
		_, err := backup.Restore(ctx, dst.target(), out)
		if !errors.Is(err, backup.ErrNotEmpty) || !strings.Contains(err.Error(), "schema auth") ||
			!strings.Contains(err.Error(), "only writes into an empty database") {
			t.Errorf("err = %v, want ErrNotEmpty naming what is there", err)
		}
		if !emptyStore(dst) {
			t.Error("refused restore wrote objects")
		}
	})
	t.Run("store", func(t *testing.T) {
		dst := newProject(t, pgtest.NewEmptyDB(t).Admin, nil)
		if err := dst.store.Put(ctx, "other/file", strings.NewReader("x"), 1, ""); err != nil {
			t.Fatal(err)
		}
		_, err := backup.Restore(ctx, dst.target(), out)
		if !errors.Is(err, backup.ErrNotEmpty) || !strings.Contains(err.Error(), `object store already holds "other/file"`) {
			t.Errorf("err = %v, want ErrNotEmpty for the store", err)
		}
		if n := schemas(dst); n != 0 {
			t.Errorf("refused restore created %d schemas", n)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(out, "objects", "*", "*"))
		if len(files) != 1 {
			t.Fatalf("object files %v", files)
		}
		if err := os.WriteFile(files[0], []byte("other bytes"), 0o600); err != nil {
			t.Fatal(err)
		}
		dst := newProject(t, pgtest.NewEmptyDB(t).Admin, nil)
		_, err := backup.Restore(ctx, dst.target(), out)
		if err == nil || !strings.Contains(err.Error(), "is damaged") {
			t.Errorf("err = %v, want a checksum failure", err)
		}
		if n := schemas(dst); n != 0 || !emptyStore(dst) {
			t.Errorf("restore of a damaged backup wrote %d schemas or objects", n)
		}
	})
}

// TestRestoreIntoS3 moves a project from the file backend to an S3 bucket
// (a fake S3 server spoken to over HTTP): the bytes land under the keys the
// rows name, and the storage service serves them.
func TestRestoreIntoS3(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	src := newProject(t, db.Admin, db.User)
	src.exec(`INSERT INTO storage.buckets (id, name) VALUES ('docs', 'docs')`)
	src.upload("docs", "a/b.txt", "text/plain", []byte("to the bucket"))
	out := filepath.Join(t.TempDir(), "backup.tar")
	if _, err := backup.Backup(ctx, src.target(), out, "v-test"); err != nil {
		t.Fatal(err)
	}
	empty := pgtest.NewEmptyDB(t)
	s3 := newS3(t)
	if _, err := backup.Restore(ctx, backup.Target{DB: empty.Admin, Storage: s3}, out); err != nil {
		t.Fatal(err)
	}
	dst := &project{t: t, admin: empty.Admin}
	svc, keys := openService(t, empty.Admin, empty.User, s3)
	dst.svc, dst.keys = svc, keys
	if got := dst.download("docs", "a/b.txt"); string(got) != "to the bucket" {
		t.Errorf("restored object = %q", got)
	}
	// A second restore into the same bucket is refused: it is not empty.
	if _, err := backup.Restore(ctx, backup.Target{DB: pgtest.NewEmptyDB(t).Admin, Storage: s3}, out); !errors.Is(err, backup.ErrNotEmpty) {
		t.Errorf("restore into a filled bucket: %v, want ErrNotEmpty", err)
	}
}
