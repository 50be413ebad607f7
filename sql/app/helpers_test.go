package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m, pgtest.WithApp()) }

// env is one test's database plus helpers to act as its users.
type env struct {
	t   testing.TB
	ctx context.Context
	db  *pgtest.DB
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return &env{t: t, ctx: context.Background(), db: pgtest.NewDB(t)}
}

var userSeq atomic.Int64

// signUp inserts an auth user the way the auth service does (one statement,
// metadata filled) and returns its id.
func (e *env) signUp(role string) string {
	e.t.Helper()
	n := userSeq.Add(1)
	meta := map[string]any{"display_name": fmt.Sprintf("User %d", n), "username": fmt.Sprintf("user%d", n)}
	if role != "" {
		meta["role"] = role
	}
	return e.signUpMeta(fmt.Sprintf("user%d@example.com", n), meta)
}

func (e *env) signUpMeta(email string, meta map[string]any) string {
	e.t.Helper()
	b, err := json.Marshal(meta)
	if err != nil {
		e.t.Fatal(err)
	}
	var id string
	err = e.db.Admin.QueryRow(e.ctx, `INSERT INTO auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', $1, $2, now(), now()) RETURNING id::text`, email, b).Scan(&id)
	if err != nil {
		e.t.Fatalf("sign up %s: %v", email, err)
	}
	return id
}

// admin creates a user and promotes them with the operator command.
func (e *env) admin() string {
	e.t.Helper()
	id := e.signUp("fan")
	e.exec(`SELECT backline.promote_to_admin($1)`, id)
	return id
}

// exec runs SQL as the database owner (fixtures).
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Admin.Exec(e.ctx, sql, args...); err != nil {
		e.t.Fatalf("exec %q: %v", sql, err)
	}
}

// scalar reads one value as the database owner.
func scalar[T any](e *env, sql string, args ...any) T {
	e.t.Helper()
	var v T
	if err := e.db.Admin.QueryRow(e.ctx, sql, args...).Scan(&v); err != nil {
		e.t.Fatalf("query %q: %v", sql, err)
	}
	return v
}

// caller is who a request runs as: a user id (or "" for anon) and the
// address the gateway saw.
type caller struct {
	uid string
	ip  string
}

func (c caller) request() pg.Caller {
	headers, _ := json.Marshal(map[string]string{"x-real-ip": c.ip})
	if c.uid == "" {
		return pg.Caller{Role: "anon", Headers: headers}
	}
	claims, _ := json.Marshal(map[string]string{"sub": c.uid, "role": "authenticated"})
	return pg.Caller{Role: "authenticated", Claims: claims, Headers: headers}
}

func service() pg.Caller {
	return pg.Caller{Role: "service_role"}
}

// as runs fn in a transaction as c, the way the REST layer would.
func (e *env) as(c caller, fn func(tx pgx.Tx) error) error {
	return pg.AsCaller(e.ctx, e.db.User, c.request(), fn)
}

// asUser runs one statement as c and scans one row.
func (e *env) query(c caller, sql string, args []any, dest ...any) error {
	return e.as(c, func(tx pgx.Tx) error {
		return tx.QueryRow(e.ctx, sql, args...).Scan(dest...)
	})
}

// execAs runs one statement as c and returns the rows affected.
func (e *env) execAs(c caller, sql string, args ...any) (int64, error) {
	var n int64
	err := e.as(c, func(tx pgx.Tx) error {
		tag, err := tx.Exec(e.ctx, sql, args...)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// try runs one statement as c inside a transaction that is rolled back, so
// table-driven cases do not see each other's writes. It returns the rows
// affected (or returned) and the error.
func (e *env) try(c caller, sql string, args ...any) (int64, error) {
	tx, err := e.db.User.Begin(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck
	if err := pg.SetupTx(e.ctx, tx, c.request()); err != nil {
		e.t.Fatal(err)
	}
	rows, err := tx.Query(e.ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	var n int64
	for rows.Next() {
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		n = rows.CommandTag().RowsAffected()
	}
	return n, nil
}

// sqlState is the SQLSTATE of err, or "" when err is nil or not from Postgres.
func sqlState(err error) string {
	if pgErr, ok := pg.AsPgError(err); ok {
		return pgErr.Code
	}
	if err != nil {
		return "?" + err.Error()
	}
	return ""
}

// sqlMessage is the message of a Postgres error.
func sqlMessage(err error) string {
	if pgErr, ok := pg.AsPgError(err); ok {
		return pgErr.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// world is a small cast: two fans, two artists, two sponsors and an admin;
// the first artist has a track the first sponsor sponsors (through an
// accepted invite) and an unsponsored one.
type world struct {
	fan, fan2, artist, artist2, sponsor, sponsor2, admin string
	track, plainTrack                                    string
}

func (e *env) newWorld() *world {
	e.t.Helper()
	w := &world{
		fan: e.signUp("fan"), fan2: e.signUp("fan"),
		artist: e.signUp("artist"), artist2: e.signUp("artist"),
		sponsor: e.signUp("sponsor"), sponsor2: e.signUp("sponsor"),
	}
	w.admin = e.admin()
	w.track = scalar[string](e, `INSERT INTO public.tracks (title, artist_id, audio_url, duration, genre)
		VALUES ('Sponsored Song', $1, '/storage/v1/object/public/tracks/a.mp3', 180, 'Afrobeats') RETURNING id::text`, w.artist)
	w.plainTrack = scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration)
		VALUES ('Plain Song', $1, 200) RETURNING id::text`, w.artist)
	e.exec(`INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, status) VALUES ($1, $2, $3, 'accepted')`,
		w.artist, w.sponsor, w.track)
	e.exec(`UPDATE public.tracks SET is_sponsored = true, sponsor_id = $2 WHERE id = $1`, w.track, w.sponsor)
	return w
}

func user(uid string) caller { return caller{uid: uid, ip: "198.51.100.7"} }

var anon = caller{ip: "198.51.100.99"}

// fund credits a wallet from the seed's external account through the ledger.
func (e *env) fund(uid string, amount int) {
	e.t.Helper()
	e.exec(`SELECT backline.fund_wallet($1, $2, 'fund-' || gen_random_uuid())`, uid, amount)
}

// listen starts a play as c, moves its start back by age seconds (the
// server's clock is what counts), and inserts the stream the way the app
// does. It returns the server's verdict.
func (e *env) listen(c caller, trackID string, age int) (valid bool, reason string) {
	e.t.Helper()
	var play string
	if err := e.query(c, `SELECT public.start_play($1)::text`, []any{trackID}, &play); err != nil {
		e.t.Fatalf("start_play: %v", err)
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - make_interval(secs => $2) WHERE id = $1`, play, age)
	return e.insertStream(c, trackID)
}

// insertStream is the app's direct insert into streams, claiming validity.
func (e *env) insertStream(c caller, trackID string) (valid bool, reason string) {
	e.t.Helper()
	var r *string
	err := e.query(c, `INSERT INTO public.streams (track_id, user_id, duration, is_valid, ip_address)
		VALUES ($1, $2, 31, true, '10.0.0.1') RETURNING is_valid, invalid_reason`, []any{trackID, c.uid}, &valid, &r)
	if err != nil {
		e.t.Fatalf("insert stream: %v", err)
	}
	if r != nil {
		reason = *r
	}
	return valid, reason
}

// balance is a wallet's balance as text ("50.00").
func (e *env) balance(id string) string {
	e.t.Helper()
	return scalar[string](e, `SELECT balance::text FROM public.wallets WHERE id = $1`, id)
}

// conserved fails the test when the wallets do not sum to zero.
func (e *env) conserved() {
	e.t.Helper()
	if s := scalar[string](e, `SELECT coalesce(sum(balance), 0)::text FROM public.wallets`); s != "0.00" && s != "0" {
		e.t.Errorf("sum of all wallets = %s, want 0", s)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.wallets WHERE kind <> 'external' AND balance < 0`); n != 0 {
		e.t.Errorf("%d wallets are negative", n)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
