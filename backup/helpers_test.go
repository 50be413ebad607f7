package backup_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/storage/s3backend"
)

func TestMain(m *testing.M) { pgtest.Main(m, pgtest.WithApp()) }

// project is one database with its file-backed object store and the real
// storage service over both.
type project struct {
	t     *testing.T
	admin *pgxpool.Pool
	store storage.Backend
	svc   *storage.Service
	keys  *jwt.Keys
}

// newProject opens the storage service on admin/user and a fresh storage dir.
func newProject(t *testing.T, admin, user *pgxpool.Pool) *project {
	t.Helper()
	store, err := fsbackend.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, admin: admin, store: store}
	if user == nil {
		return p // restore targets get their service after the restore
	}
	p.open(user)
	return p
}

// open starts the storage service (its schema must exist by then).
func (p *project) open(user *pgxpool.Pool) {
	p.t.Helper()
	p.svc, p.keys = openService(p.t, p.admin, user, p.store)
}

func openService(t *testing.T, admin, user *pgxpool.Pool, store storage.Backend) (*storage.Service, *jwt.Keys) {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := storage.New(storage.Config{}, admin, user, keys, store)
	if err != nil {
		t.Fatal(err)
	}
	return svc, keys
}

// newS3 is the S3 backend over an in-process fake S3 server.
func newS3(t *testing.T) storage.Backend {
	t.Helper()
	ts := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(ts.Close)
	b, err := s3backend.New(context.Background(), storage.S3Config{
		Endpoint: strings.TrimPrefix(ts.URL, "http://"), Bucket: "basalt-restore", Region: "us-east-1",
		AccessKey: "test", SecretKey: "testsecret", Prefix: "project",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (p *project) target() backup.Target {
	return backup.Target{DB: p.admin, Storage: p.store}
}

// request calls the storage service as service_role.
func (p *project) request(method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	p.t.Helper()
	r := httptest.NewRequest(method, "http://basalt"+(&url.URL{Path: path}).EscapedPath(), bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("x-upsert", "true")
	}
	tok := p.keys.ServiceRoleKey
	cl, err := p.keys.Verify(tok, time.Now())
	r = r.WithContext(jwt.NewContext(r.Context(), &jwt.Caller{Token: tok, Claims: cl, Err: err}))
	rec := httptest.NewRecorder()
	p.svc.ServeHTTP(rec, r)
	return rec
}

// upload stores body at bucket/name through the API (replacing what is there).
func (p *project) upload(bucket, name, contentType string, body []byte) {
	p.t.Helper()
	if rec := p.request(http.MethodPost, "/object/"+bucket+"/"+name, contentType, body); rec.Code != http.StatusOK {
		p.t.Fatalf("upload %s/%s = %d %s", bucket, name, rec.Code, rec.Body)
	}
}

// download reads bucket/name through the API.
func (p *project) download(bucket, name string) []byte {
	p.t.Helper()
	rec := p.request(http.MethodGet, "/object/authenticated/"+bucket+"/"+name, "", nil)
	if rec.Code != http.StatusOK {
		p.t.Fatalf("download %s/%s = %d %s", bucket, name, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

func (p *project) exec(q string, args ...any) {
	p.t.Helper()
	if _, err := p.admin.Exec(context.Background(), q, args...); err != nil {
		p.t.Fatalf("%s: %v", q, err)
	}
}

func scalar[T any](t *testing.T, db *pgxpool.Pool, q string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(context.Background(), q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// seededProject is a Backline database with the dev seed applied (users,
// wallets, ledger rows, tracks) and media objects: each seeded track's audio
// and cover, a private nested object, and one object replaced once (so its
// first version's bytes are gone, as in real use).
func seededProject(t *testing.T) *project {
	t.Helper()
	db := pgtest.NewDB(t)
	p := newProject(t, db.Admin, db.User)
	root, err := pgtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "sql", "seed", "*.sql"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no seed files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p.exec(string(b))
	}
	rows, _ := db.Admin.Query(context.Background(), `SELECT audio_url, cover_url FROM public.tracks
		WHERE audio_url LIKE '/storage/v1/object/public/%' ORDER BY id`)
	urls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var u [2]string
		return u, r.Scan(&u[0], &u[1])
	})
	if err != nil || len(urls) == 0 {
		t.Fatalf("seeded tracks: %v %v", urls, err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, u := range urls {
		audioBucket, audio, _ := strings.Cut(strings.TrimPrefix(u[0], "/storage/v1/object/public/"), "/")
		coverBucket, cover, _ := strings.Cut(strings.TrimPrefix(u[1], "/storage/v1/object/public/"), "/")
		p.upload(audioBucket, audio, "audio/wav", randomBytes(rnd, 20_000))
		p.upload(coverBucket, cover, "image/jpeg", randomBytes(rnd, 3_000))
	}
	p.exec(`INSERT INTO storage.buckets (id, name, public) VALUES ('docs', 'docs', false)`)
	p.upload("docs", "5eed/notes/first draft.txt", "text/plain", []byte("version one"))
	p.upload("docs", "5eed/notes/first draft.txt", "text/plain", []byte("version two, replacing one"))
	p.upload("docs", "empty.txt", "text/plain", nil)
	return p
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// newCluster starts a second, empty PostgreSQL cluster (no roles besides its
// bootstrap superuser) and returns admin and authenticator pools on its
// postgres database, the way a fresh server looks.
func newCluster(t *testing.T) (admin *pgxpool.Pool, userURL string) {
	t.Helper()
	ctx := context.Background()
	c, stop, err := pgcluster.StartTemp(ctx, "bkr", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	admin, err = pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	return admin, c.SocketURL("authenticator", "postgres")
}

// tableCounts counts the rows of every table outside the system schemas.
func tableCounts(t *testing.T, db *pgxpool.Pool) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	rows, _ := db.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_'`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, tb := range tables {
		counts[tb] = scalar[int64](t, db, "SELECT count(*) FROM "+tb)
	}
	return counts
}

// fingerprint is a digest of query results, for comparing whole tables.
func fingerprint(t *testing.T, db *pgxpool.Pool, q string) string {
	t.Helper()
	return scalar[string](t, db, fmt.Sprintf(`SELECT coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), 'none') FROM (%s) x`, q))
}

// objectSums maps bucket/name to the SHA-256 of the bytes the store holds
// for each row's current version.
func (p *project) objectSums() map[string]string {
	p.t.Helper()
	ctx := context.Background()
	rows, _ := p.admin.Query(ctx, `SELECT bucket_id, name, coalesce(version, '') FROM storage.objects`)
	objs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([3]string, error) {
		var o [3]string
		return o, r.Scan(&o[0], &o[1], &o[2])
	})
	if err != nil {
		p.t.Fatal(err)
	}
	sums := map[string]string{}
	for _, o := range objs {
		rc, err := p.store.Get(ctx, storage.ObjectKey(o[0], o[1], o[2]), 0, -1)
		if err != nil {
			p.t.Fatalf("bytes of %s/%s: %v", o[0], o[1], err)
		}
		h := sha256.New()
		_, err = io.Copy(h, rc)
		_ = rc.Close()
		if err != nil {
			p.t.Fatal(err)
		}
		sums[o[0]+"/"+o[1]] = hex.EncodeToString(h.Sum(nil))
	}
	return sums
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
