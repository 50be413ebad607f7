// Package appseed fills a migrated Backline database with a large, fixed
// data set for the benchmarks of its queries (bench/admin, bench/dashboards):
// users of every role, tracks, streams, the ledger, cash-outs, invites,
// activity, KYC, payments and verifications. Rows have fixed ids (UserID,
// TrackID), so a benchmark can name them.
package appseed

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Sizes is how much data to seed.
type Sizes struct {
	Users, Streams, Tracks, Payments int
}

// Full is the issues' scale: 100k users and 1M streams; Smoke is a few
// seconds' worth, for CI.
var (
	Full  = Sizes{Users: 100_000, Streams: 1_000_000, Tracks: 5_000, Payments: 1_000}
	Smoke = Sizes{Users: 2_000, Streams: 20_000, Tracks: 200, Payments: 50}
)

// UserID is the id of seeded user n (1 is the admin; see roleOf).
func UserID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012x", n) }

// userID and trackID give seeded rows fixed ids, so cases can name them.
const (
	userID  = `('00000000-0000-4000-8000-' || lpad(to_hex(%s), 12, '0'))::uuid`
	trackID = `('00000000-0000-4000-9000-' || lpad(to_hex(%s), 12, '0'))::uuid`
	// Every 100th user is a sponsor, every 20th (from 21) an artist, user 1
	// the admin, everyone else a fan.
	roleOf = `(CASE WHEN %[1]s = 1 THEN 'admin' WHEN %[1]s %% 100 = 0 THEN 'sponsor' WHEN %[1]s %% 20 = 1 THEN 'artist' ELSE 'fan' END)::public.app_role`
)

func uid(col string) string  { return fmt.Sprintf(userID, col) }
func tid(col string) string  { return fmt.Sprintf(trackID, col) }
func role(col string) string { return fmt.Sprintf(roleOf, col) }
func artistOf(i string) string {
	return uid(fmt.Sprintf("(20 * (1 + %s %% (@users / 20 - 1)) + 1)", i))
}
func sponsorOf(i string) string {
	return uid(fmt.Sprintf("(100 * (1 + %s %% (@users / 100)))", i))
}

// seedSteps fill every table the admin lists and the dashboards read, in
// bulk, with triggers off (session_replication_role = replica); the
// counters, the sponsorship spend, the wallet balances and the ledger's
// running totals are then derived from the rows, so the ledger balances and
// the data is what the triggers would have made.
func seedSteps() []struct{ name, sql string } {
	return []struct{ name, sql string }{
		{"users", `INSERT INTO auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at, last_sign_in_at)
			SELECT ` + uid("g") + `, 'authenticated', 'authenticated', 'user' || g || '@bench.example', '{}',
			  now() - make_interval(secs => (@users - g) * 300), now(), CASE WHEN g % 3 = 0 THEN now() - make_interval(secs => g) END
			FROM generate_series(1, @users) g`},
		{"profiles", `INSERT INTO public.public_profiles (id, display_name, username, role, name, is_verified, is_suspended, suspended_reason, created_at)
			SELECT ` + uid("g") + `, 'Bench User ' || g, 'user' || g, ` + role("g") + `, 'Bench User ' || g, g % 50 = 0, g % 500 = 7,
			  CASE WHEN g % 500 = 7 THEN 'spam' END, now() - make_interval(secs => (@users - g) * 300)
			FROM generate_series(1, @users) g`},
		{"user search", `INSERT INTO backline.user_search (id, created_at, doc)
			SELECT p.id, p.created_at, lower(concat_ws(' ', p.username, p.display_name, p.name, u.email))
			FROM public.public_profiles p JOIN auth.users u ON u.id = p.id`},
		{"roles", `INSERT INTO public.user_roles (user_id, role) SELECT ` + uid("g") + `, ` + role("g") + ` FROM generate_series(1, @users) g`},
		{"wallets", `INSERT INTO public.wallets (id, user_id, kind) SELECT ` + uid("g") + `, ` + uid("g") + `, 'user' FROM generate_series(1, @users) g`},
		{"artists", `INSERT INTO public.artist_profiles (id, name, kyc_status)
			SELECT ` + uid("g") + `, 'Artist ' || g, CASE WHEN g % 7 = 0 THEN 'pending' ELSE 'none' END
			FROM generate_series(21, @users, 20) g`},
		{"sponsors", `INSERT INTO public.sponsor_profiles (id, name, company_name) SELECT ` + uid("g") + `, 'Sponsor ' || g, 'Company ' || g
			FROM generate_series(100, @users, 100) g`},
		{"tracks", `INSERT INTO public.tracks (id, title, artist_id, is_sponsored, sponsor_id, status, created_at)
			SELECT ` + tid("i") + `, 'Bench Track ' || i, ` + artistOf("i") + `, i % 10 = 0,
			  CASE WHEN i % 10 = 0 THEN ` + sponsorOf("i") + ` END, CASE WHEN i % 200 = 3 THEN 'hidden' ELSE 'active' END,
			  now() - make_interval(secs => (@tracks - i) * 1000)
			FROM generate_series(1, @tracks) i`},
		{"streams", `INSERT INTO public.streams (track_id, user_id, duration, is_valid, invalid_reason, ip_address, created_at)
			SELECT ` + tid("(1 + (s * 104729) % @tracks)") + `, ` + uid("(2 + (s * 7919) % (@users - 1))") + `, 31, s % 10 <> 0,
			  CASE WHEN s % 10 = 0 THEN 'Duplicate stream prevented - allowance type: ip' END, 'ipk_' || (s % 50000),
			  now() - make_interval(secs => (@streams - s) * 7)
			FROM generate_series(1::bigint, @streams) s`},
		{"track counters", `UPDATE public.tracks t SET streams = c.n FROM (SELECT track_id, count(*) AS n FROM public.streams WHERE is_valid GROUP BY 1) c
			WHERE c.track_id = t.id`},
		{"paid streams", `INSERT INTO public.transactions (reference, kind, from_wallet, to_wallet, amount, from_balance_after, to_balance_after, stream_id, track_id, created_at)
			SELECT 'stream-' || s.id, 'sponsored_stream', t.sponsor_id, t.artist_id, 50, 0, 0, s.id, t.id, s.created_at
			FROM public.streams s JOIN public.tracks t ON t.id = s.track_id WHERE t.is_sponsored AND s.is_valid`},
		{"mark paid", `UPDATE public.streams s SET paid_reference = x.reference FROM public.transactions x WHERE x.stream_id = s.id`},
		{"top-ups", `INSERT INTO public.transactions (reference, kind, from_wallet, to_wallet, amount, from_balance_after, to_balance_after, created_at)
			SELECT 'topup-' || p.id, 'topup', '00000000-0000-0000-0000-00000000f004', p.id, coalesce(spent.amount, 0) + 10000, 0, 0, p.created_at - interval '1 day'
			FROM public.public_profiles p LEFT JOIN (SELECT from_wallet, sum(amount) AS amount FROM public.transactions GROUP BY 1) spent ON spent.from_wallet = p.id
			WHERE p.role = 'sponsor'`},
		{"balances", `UPDATE public.wallets w SET balance = net.n FROM (
			  SELECT id, sum(d) AS n FROM (SELECT to_wallet AS id, amount AS d FROM public.transactions
			    UNION ALL SELECT from_wallet, -amount FROM public.transactions) m GROUP BY id) net WHERE net.id = w.id`},
		{"sponsorship spend", `INSERT INTO backline.sponsorship_spend (sponsor_id, track_id, streams, amount, last_paid_at)
			SELECT from_wallet, track_id, count(*), sum(amount), max(created_at) FROM public.transactions
			WHERE kind = 'sponsored_stream' GROUP BY 1, 2`},
		{"invites", `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, status, initiated_by, created_at, responded_at)
			SELECT artist_id, sponsor_id, id, 'accepted', 'sponsor', created_at - interval '1 hour', created_at FROM public.tracks WHERE is_sponsored
			UNION ALL
			SELECT ` + artistOf("i") + `, ` + sponsorOf("(i + 1)") + `, NULL, 'pending', 'artist', now() - make_interval(mins => i), NULL
			FROM generate_series(1, @tracks / 5) i`},
		{"cash-outs", `INSERT INTO public.cashout_requests (user_id, amount, status, bank_name, account_number, account_name, reason, processed_at, created_at)
			SELECT ` + artistOf("i") + `, 1000 + i % 50 * 100, CASE WHEN i % 20 = 0 THEN 'pending' WHEN i % 7 = 0 THEN 'rejected' ELSE 'completed' END,
			  'GTBank', '0123456789', 'Bench Artist', CASE WHEN i % 7 = 0 AND i % 20 <> 0 THEN 'Bank details do not match' END,
			  CASE WHEN i % 20 <> 0 THEN now() - make_interval(mins => i * 10 - 5) END, now() - make_interval(mins => i * 10)
			FROM generate_series(1, @users / 5) i`},
		{"activity", `INSERT INTO public.activity_log (actor_id, action, entity_type, entity_id, details, created_at)
			SELECT id, 'user.signup', 'user', id::text, jsonb_build_object('role', role), created_at FROM public.public_profiles
			UNION ALL SELECT artist_id, 'track.created', 'track', id::text, jsonb_build_object('title', title), created_at FROM public.tracks
			UNION ALL SELECT to_wallet, 'payment.completed', 'payment', reference, jsonb_build_object('amount', amount, 'purpose', 'topup'), created_at
			  FROM public.transactions WHERE kind = 'topup'`},
		{"audit", `INSERT INTO public.admin_audit_log (actor_id, action, target_type, target_id, reason, before, after, created_at)
			SELECT ` + uid("1") + `, 'user.suspend', 'user', (` + uid("(7 + 500 * i)") + `)::text, 'spam', '{"is_suspended": false}', '{"is_suspended": true}',
			  now() - make_interval(mins => i)
			FROM generate_series(0, @users / 500 - 1) i`},
		{"kyc", `INSERT INTO public.kyc_submissions (artist_id, full_name, document_type, document_number, status, expires_at, created_at)
			SELECT a.id, a.name, 'nin', '1234567890' || right(a.id::text, 3), CASE WHEN a.kyc_status = 'pending' THEN 'pending' ELSE 'approved' END,
			  CASE WHEN a.kyc_status = 'pending' THEN NULL ELSE now() + interval '1 year' END, a.created_at
			FROM public.artist_profiles a WHERE a.kyc_status = 'pending' OR right(a.id::text, 1) IN ('1', '5')`},
		{"payments", `INSERT INTO public.payments (user_id, provider, tx_ref, purpose, amount, vat, fee, total, status, created_at)
			SELECT ` + uid("(2 + i)") + `, 'sandbox', 'verification-bench-' || i, 'verification', 60000, 4500, 1000, 65500,
			  CASE WHEN i % 10 = 0 THEN 'pending' ELSE 'successful' END, now() - make_interval(hours => i)
			FROM generate_series(1, @payments) i`},
		{"verifications", `INSERT INTO public.verifications (user_id, payment_id, granted_at, expires_at)
			SELECT user_id, id, created_at, created_at + interval '365 days' FROM public.payments WHERE status = 'successful'`},
		{"ledger totals", `SELECT backline.reset_ledger_totals()`},
	}
}

// Open connects to the benchmark's database as its owner (adminURL, a
// superuser) and as the REST layer's user (userURL), each pool sized for
// maxConns, and seeds it with sz. The caller closes both pools.
func Open(ctx context.Context, adminURL, userURL string, maxConns int32, sz Sizes) (owner, users *pgxpool.Pool, err error) {
	size := func(c *pgxpool.Config) { c.MaxConns = maxConns }
	if owner, err = pg.Connect(ctx, adminURL, size); err != nil {
		return nil, nil, err
	}
	if users, err = pg.Connect(ctx, userURL, size); err != nil {
		owner.Close()
		return nil, nil, err
	}
	start := time.Now()
	if err := Seed(ctx, owner, sz); err != nil {
		owner.Close()
		users.Close()
		return nil, nil, err
	}
	log.Printf("seeded %d users, %d streams, %d tracks in %s", sz.Users, sz.Streams, sz.Tracks, time.Since(start).Round(time.Second))
	return owner, users, nil
}

// Seed loads the data with triggers off (the pool's user must be a
// superuser), then vacuums and analyzes.
func Seed(ctx context.Context, pool *pgxpool.Pool, sz Sizes) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		return fmt.Errorf("triggers off (the benchmark needs a superuser): %w", err)
	}
	args := pgx.NamedArgs{"users": sz.Users, "streams": sz.Streams, "tracks": sz.Tracks, "payments": sz.Payments}
	for _, step := range seedSteps() {
		start := time.Now()
		tag, err := conn.Exec(ctx, step.sql, args)
		if err != nil {
			return fmt.Errorf("seed %s: %w", step.name, err)
		}
		log.Printf("seed %-18s %9d rows in %s", step.name, tag.RowsAffected(), time.Since(start).Round(time.Millisecond))
	}
	if _, err := conn.Exec(ctx, `RESET session_replication_role`); err != nil {
		return err
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return err
	}
	log.Printf("vacuum analyze in %s", time.Since(start).Round(time.Millisecond))
	return nil
}
