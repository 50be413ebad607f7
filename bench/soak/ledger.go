package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// before is the database before the load: the run's transactions are
// those created after start (the database's clock).
type before struct {
	start       time.Time
	userWallets int64 // kobo
}

func snapshot(ctx context.Context, db *pgxpool.Pool) (before, error) {
	var b before
	err := db.QueryRow(ctx, `SELECT now(), (coalesce(sum(balance) FILTER (WHERE kind = 'user'), 0) * 100)::bigint
		FROM public.wallets`).Scan(&b.start, &b.userWallets)
	return b, err
}

// check is one line of the end-of-run verdict.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// verdict checks money and acknowledgements after the load, in one
// snapshot of the database. exact says no fault was injected: then every
// committed payment and top-up must also have been acknowledged.
func verdict(ctx context.Context, db *pgxpool.Pool, a *api, b before, ak *acks, exact bool) ([]check, error) {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	ak.mu.Lock()
	defer ak.mu.Unlock()
	var out []check
	add := func(name string, ok bool, format string, args ...any) {
		out = append(out, check{name, ok, fmt.Sprintf(format, args...)})
	}
	q := func(dst []any, sql string, args ...any) error { return tx.QueryRow(ctx, sql, args...).Scan(dst...) }

	// Conservation: every movement debits one wallet and credits another.
	var total, wallets, drifted int64
	if err := q([]any{&total, &wallets}, `SELECT (coalesce(sum(balance), 0) * 100)::bigint, count(*) FROM public.wallets`); err != nil {
		return nil, err
	}
	add("all wallets sum to zero", total == 0, "%s over %d wallets (users, system and external accounts)", naira(total), wallets)
	if err := q([]any{&drifted}, `SELECT count(*) FROM public.wallets w LEFT JOIN (
		  SELECT wallet, sum(delta) AS net FROM (
		    SELECT to_wallet AS wallet, amount AS delta FROM public.transactions
		    UNION ALL SELECT from_wallet, -amount FROM public.transactions) m GROUP BY wallet) l ON l.wallet = w.id
		WHERE w.balance <> coalesce(l.net, 0)`); err != nil {
		return nil, err
	}
	add("every balance equals its ledger net", drifted == 0, "%d of %d wallets differ from the sum of their transactions", drifted, wallets)

	// The run: only top-ups bring money into user wallets.
	var userEnd, inflow, topups, topupN int64
	if err := q([]any{&userEnd, &inflow, &topups, &topupN}, `SELECT
		  (SELECT (coalesce(sum(balance), 0) * 100)::bigint FROM public.wallets WHERE kind = 'user'),
		  (SELECT (coalesce(sum(CASE WHEN tw.kind = 'user' AND fw.kind <> 'user' THEN t.amount
		                             WHEN fw.kind = 'user' AND tw.kind <> 'user' THEN -t.amount ELSE 0 END), 0) * 100)::bigint
		     FROM public.transactions t JOIN public.wallets fw ON fw.id = t.from_wallet JOIN public.wallets tw ON tw.id = t.to_wallet
		    WHERE t.created_at >= $1),
		  (SELECT (coalesce(sum(amount), 0) * 100)::bigint FROM public.transactions WHERE kind = 'topup' AND created_at >= $1),
		  (SELECT count(*) FROM public.transactions WHERE kind = 'topup' AND created_at >= $1)`, b.start); err != nil {
		return nil, err
	}
	add("user wallets grew by the run's top-ups", userEnd-b.userWallets == inflow && inflow == topups,
		"start %s + top-ups %s (%d) = end %s (ledger inflow %s)", naira(b.userWallets), naira(topups), topupN, naira(userEnd), naira(inflow))

	// Sponsored payments: each stream paid at most once, by its reference.
	var paidN, paidSum, wrongAmount, twice, orphan, unpaid, settledNoTx int64
	if err := q([]any{&paidN, &paidSum, &wrongAmount}, `SELECT count(*), (coalesce(sum(amount), 0) * 100)::bigint,
		  count(*) FILTER (WHERE amount <> $2) FROM public.transactions WHERE kind = 'sponsored_stream' AND created_at >= $1`,
		b.start, streamPayment); err != nil {
		return nil, err
	}
	if err := q([]any{&twice, &orphan, &unpaid, &settledNoTx}, `SELECT
		  (SELECT count(*) FROM (SELECT stream_id FROM public.transactions WHERE kind = 'sponsored_stream'
		     GROUP BY stream_id HAVING count(*) > 1) d),
		  (SELECT count(*) FROM public.transactions t WHERE t.kind = 'sponsored_stream' AND NOT EXISTS (
		     SELECT 1 FROM public.streams s WHERE s.id = t.stream_id AND s.paid_reference = t.reference AND s.is_valid)),
		  (SELECT count(*) FROM public.streams s WHERE s.paid_reference IS NOT NULL AND NOT EXISTS (
		     SELECT 1 FROM public.transactions t WHERE t.reference = s.paid_reference AND t.stream_id = s.id)),
		  (SELECT count(*) FROM public.stream_settlements ss WHERE ss.success <> EXISTS (
		     SELECT 1 FROM public.transactions t WHERE t.reference = ss.reference AND t.kind = 'sponsored_stream'))`); err != nil {
		return nil, err
	}
	add("every stream paid at most once", twice == 0 && orphan == 0 && unpaid == 0 && settledNoTx == 0 && wrongAmount == 0,
		"run: %d payments, %s; streams paid twice %d, payments without their valid stream %d, marks without a payment %d, settlement results that disagree with the ledger %d, amounts not ₦%d: %d",
		paidN, naira(paidSum), twice, orphan, unpaid, settledNoTx, streamPayment, wrongAmount)

	var lost int64
	if err := q([]any{&lost}, `SELECT count(*) FROM unnest($1::text[]) r WHERE (SELECT count(*) FROM public.transactions t
		WHERE t.reference = r AND t.kind = 'sponsored_stream' AND t.amount = $2) <> 1`, ak.payments, streamPayment); err != nil {
		return nil, err
	}
	extra := paidN - int64(len(ak.payments))
	add("acknowledged payments in the ledger once", lost == 0 && extra >= 0 && (!exact || extra == 0),
		"%d acknowledged, %d missing or not exactly once; committed without an answer: %d", len(ak.payments), lost, extra)

	// Top-ups: the webhook and the verify both complete a payment; it
	// credits once.
	refs, amounts := make([]string, 0, len(ak.topups)), make([]float64, 0, len(ak.topups))
	for r, amt := range ak.topups {
		refs, amounts = append(refs, r), append(amounts, amt)
	}
	var topLost, creditedTwice int64
	if err := q([]any{&topLost}, `SELECT count(*) FROM unnest($1::text[], $2::numeric[]) AS a(r, amt) WHERE
		  (SELECT count(*) FROM public.transactions t WHERE t.reference = 'payment:paystack:' || a.r AND t.kind = 'topup' AND t.amount = a.amt) <> 1
		  OR NOT EXISTS (SELECT 1 FROM public.payments p WHERE p.tx_ref = a.r AND p.status = 'successful')`, refs, amounts); err != nil {
		return nil, err
	}
	if err := q([]any{&creditedTwice}, `SELECT count(*) FROM (SELECT metadata ->> 'tx_ref' FROM public.transactions
		WHERE kind = 'topup' AND metadata ? 'tx_ref' GROUP BY 1 HAVING count(*) > 1) d`); err != nil {
		return nil, err
	}
	topExtra := topupN - int64(len(ak.topups))
	add("acknowledged top-ups credited once", topLost == 0 && creditedTwice == 0 && topExtra >= 0 && (!exact || topExtra == 0),
		"%d acknowledged, %d missing or not exactly once, payments credited twice %d; committed without an answer: %d",
		len(ak.topups), topLost, creditedTwice, topExtra)

	// Plain writes: each acknowledged row is there once.
	rows := []struct {
		name, sql string
		keys      []string
	}{
		{"acknowledged streams stored", `SELECT count(*) FROM unnest($1::uuid[]) k WHERE NOT EXISTS (
			SELECT 1 FROM public.streams s WHERE s.id = k AND s.is_valid)`, ak.streams},
		{"acknowledged early-access sign-ups stored once", `SELECT count(*) FROM unnest($1::text[]) k WHERE (
			SELECT count(*) FROM public.early_access_subscribers e WHERE lower(e.email) = lower(k)) <> 1`, ak.early},
		{"acknowledged sign-ups stored once", `SELECT count(*) FROM unnest($1::text[]) k WHERE (
			SELECT count(*) FROM auth.users u WHERE lower(u.email) = lower(k)) <> 1`, ak.signups},
		{"acknowledged uploads stored once", `SELECT count(*) FROM unnest($1::text[]) k WHERE (
			SELECT count(*) FROM storage.objects o WHERE o.bucket_id = 'avatars' AND o.name = k) <> 1`, uploadNames(ak.uploads)},
	}
	for _, r := range rows {
		var missing int64
		if err := q([]any{&missing}, r.sql, r.keys); err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		add(r.name, missing == 0, "%d acknowledged, %d missing or duplicated", len(r.keys), missing)
	}
	bad, err := checkBios(ctx, tx, ak.bios)
	if err != nil {
		return nil, err
	}
	add("profiles hold their last acknowledged update", bad == 0, "%d users updated, %d hold something else", len(ak.bios), bad)

	// Counters follow valid streams exactly.
	var trackDrift, artistDrift int64
	if err := q([]any{&trackDrift, &artistDrift}, `SELECT
		  (SELECT count(*) FROM public.tracks t WHERE t.streams <> (SELECT count(*) FROM public.streams s WHERE s.track_id = t.id AND s.is_valid)),
		  (SELECT count(*) FROM public.artist_profiles a WHERE a.stream_count <> (SELECT count(*) FROM public.streams s
		     JOIN public.tracks t ON t.id = s.track_id WHERE t.artist_id = a.id AND s.is_valid))`); err != nil {
		return nil, err
	}
	add("stream counters equal valid streams", trackDrift == 0 && artistDrift == 0, "tracks off %d, artists off %d", trackDrift, artistDrift)

	badBytes := checkBytes(ctx, a, ak.uploads)
	add("acknowledged uploads read back byte for byte", badBytes == 0, "%d objects, %d differ or unreadable", len(ak.uploads), badBytes)
	return out, nil
}

func uploadNames(s []stored) []string {
	out := make([]string, len(s))
	for i, o := range s {
		out[i] = o.name
	}
	return out
}

// checkBios counts users whose bio is neither the last acknowledged
// update nor one sent after it whose answer was lost.
func checkBios(ctx context.Context, tx pgx.Tx, bios map[string]*bioLog) (int, error) {
	ids := make([]string, 0, len(bios))
	for id, l := range bios {
		if l.acked != "" {
			ids = append(ids, id)
		}
	}
	rows, err := tx.Query(ctx, `SELECT id::text, coalesce(bio, '') FROM public.public_profiles WHERE id = ANY($1::uuid[])`, ids)
	if err != nil {
		return 0, err
	}
	got := map[string]string{}
	for rows.Next() {
		var id, bio string
		if err := rows.Scan(&id, &bio); err != nil {
			return 0, err
		}
		got[id] = bio
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	bad := 0
	for _, id := range ids {
		l, v := bios[id], got[id]
		ok := v == l.acked
		for _, p := range l.pending {
			ok = ok || v == p
		}
		if !ok {
			bad++
		}
	}
	return bad, nil
}

// checkBytes downloads every acknowledged upload and compares it.
func checkBytes(ctx context.Context, a *api, objs []stored) int {
	var mu sync.Mutex
	bad := 0
	jobs := make(chan stored)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				_, err := a.do(ctx, call{method: http.MethodGet, path: "/storage/v1/object/avatars/" + o.name, want: http.StatusOK, check: sameBytes(o.sum)})
				if err != nil {
					mu.Lock()
					bad++
					mu.Unlock()
				}
			}
		}()
	}
	for _, o := range objs {
		jobs <- o
	}
	close(jobs)
	wg.Wait()
	return bad
}

func naira(kobo int64) string {
	sign := ""
	if kobo < 0 {
		sign, kobo = "-", -kobo
	}
	return fmt.Sprintf("%s₦%d.%02d", sign, kobo/100, kobo%100)
}

// printChecks prints the verdict and reports whether every check passed.
func printChecks(w io.Writer, cs []check) bool {
	all := true
	for _, c := range cs {
		mark := "ok  "
		if !c.OK {
			mark, all = "FAIL", false
		}
		fmt.Fprintf(w, "  %s  %s: %s\n", mark, c.Name, c.Detail)
	}
	return all
}
