package app_test

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestAdminCashoutQueue: the pending queue oldest first by keyset;
// completing moves the held amount out of the platform and tells the artist;
// rejecting needs a reason and releases the hold; totals per day; both
// actions audited.
func TestAdminCashoutQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.fund(w.artist, 10000)
	var ids []string
	for i, amount := range []int{1000, 1500, 2000, 2500} {
		id := e.requestCashout(w.artist, amount)
		// Distinct, known ages: the first request is the oldest.
		e.exec(`UPDATE public.cashout_requests SET created_at = now() - make_interval(mins => 10 - $2::int) WHERE id = $1`, id, i)
		ids = append(ids, id)
	}
	queue := walk(t, e, admin, `SELECT * FROM public.admin_list_cashouts('pending', $1, $2, 3)`, "id",
		func(last map[string]any) []any {
			if last == nil {
				return []any{nil, nil}
			}
			return []any{last["created_at"], last["id"]}
		})
	if len(queue) != 4 {
		t.Fatalf("queue %v", queue)
	}
	for i, r := range queue {
		if r["id"] != ids[i] {
			t.Errorf("queue[%d] = %v, want %s (oldest first)", i, r["id"], ids[i])
		}
	}
	if queue[0]["wallet_balance"] != 3000.0 || queue[0]["user_name"] == nil {
		t.Errorf("queue row %v", queue[0])
	}

	held := func() string {
		return scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:held'`)
	}
	paidOut := func() string {
		return scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:paid'`)
	}
	e.mustJSON(admin, `SELECT public.complete_cashout($1)::text`, ids[0])
	if held() != "6000.00" || paidOut() != "1000.00" {
		t.Errorf("after completion held %s paid %s", held(), paidOut())
	}
	if _, err := e.callJSON(admin, `SELECT public.reject_cashout($1)::text`, ids[1]); sqlMessage(err) != "A reason is required" {
		t.Errorf("reject without reason: %v", err)
	}
	e.mustJSON(admin, `SELECT public.reject_cashout($1, 'Account name does not match')::text`, ids[1])
	if held() != "4500.00" || e.balance(w.artist) != "4500.00" {
		t.Errorf("after rejection held %s wallet %s", held(), e.balance(w.artist))
	}
	notes := scalar[string](e, `SELECT string_agg(message, ' | ' ORDER BY created_at, message) FROM public.notifications
		WHERE user_id = $1 AND type IN ('cashout_completed', 'cashout_updated')`, w.artist)
	if notes != "Your cash-out of ₦1,000 has been completed. | Your cash-out request of ₦1,500 was rejected: Account name does not match. The amount has been returned to your wallet." {
		t.Errorf("notifications %q", notes)
	}
	if c, r := e.auditRows("cashout.complete"), e.auditRows("cashout.reject"); len(c) != 1 || len(r) != 1 ||
		c[0]["before"].(map[string]any)["status"] != "pending" || c[0]["after"].(map[string]any)["status"] != "completed" ||
		r[0]["reason"] != "Account name does not match" {
		t.Errorf("audit %v %v", c, r)
	}
	if rows := e.mustRows(admin, `SELECT * FROM public.admin_list_cashouts('pending')`); len(rows) != 2 {
		t.Errorf("pending after actions: %d", len(rows))
	}
	done := e.mustRows(admin, `SELECT * FROM public.admin_list_cashouts(NULL)`)
	if len(done) != 4 || done[0]["created_at"].(string) < done[3]["created_at"].(string) {
		t.Errorf("all cash-outs newest first: %v", done)
	}
	if rej := e.mustRows(admin, `SELECT * FROM public.admin_list_cashouts('rejected')`); len(rej) != 1 || rej[0]["processed_by_name"] == nil {
		t.Errorf("rejected list %v", rej)
	}

	totals := e.mustJSON(admin, `SELECT public.admin_cashout_totals(7)::text`)
	days := totals["days"].([]any)
	today := days[0].(map[string]any)
	if len(days) != 7 || today["completed_amount"] != 1000.0 || today["rejected_amount"] != 1500.0 || today["completed_count"] != 1.0 {
		t.Errorf("totals %v", totals)
	}
	var requested float64
	for _, d := range days {
		requested += d.(map[string]any)["requested_amount"].(float64)
	}
	if requested != 7000 || totals["pending"].(map[string]any)["amount"] != 4500.0 {
		t.Errorf("requested %v, pending %v", requested, totals["pending"])
	}
	e.conserved()
}

// TestConcurrentCashoutCompletion: two admins complete the same cash-out at
// the same moment (and, on another request, one completes while the other
// rejects): each request is settled once, with one ledger movement.
func TestConcurrentCashoutCompletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	second := e.admin()
	e.fund(w.artist, 10000)
	for round := 0; round < 5; round++ {
		id := e.requestCashout(w.artist, 1000)
		calls := []string{`SELECT public.complete_cashout($1)::text`, `SELECT public.complete_cashout($1)::text`}
		if round%2 == 1 {
			calls[1] = `SELECT public.reject_cashout($1, 'duplicate')::text`
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, who := range []string{w.admin, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = e.callJSON(user(who), calls[i], id)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if m := sqlMessage(err); m != "Cash-out request is already completed" && m != "Cash-out request is already rejected" {
				t.Errorf("round %d: %v", round, err)
			}
		}
		moves := scalar[int64](e, `SELECT count(*) FROM public.transactions WHERE metadata ->> 'cashout_id' = $1 AND kind <> 'cashout_hold'`, id)
		audits := scalar[int64](e, `SELECT count(*) FROM public.admin_audit_log WHERE target_id = $1`, id)
		if ok != 1 || moves != 1 || audits != 1 {
			t.Errorf("round %d: %d succeeded, %d ledger movements, %d audit rows; want 1 each", round, ok, moves, audits)
		}
	}
	completed := scalar[string](e, `SELECT coalesce(sum(amount), 0)::text FROM public.cashout_requests WHERE status = 'completed'`)
	if paid := scalar[string](e, `SELECT balance::text FROM public.wallets WHERE account = 'cashout:paid'`); paid != completed {
		t.Errorf("paid out %s, completed requests %s", paid, completed)
	}
	e.conserved()
}

// TestAdminLedger: the whole ledger by keyset with filters, the invariant
// check, and manual adjustments with a reason.
func TestAdminLedger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.fund(w.sponsor, 1000)
	e.fund(w.artist, 3000)
	for i := 0; i < 3; i++ {
		fan := e.freshFan()
		if valid, reason := e.listen(fan, w.track, 31); !valid {
			t.Fatal(reason)
		}
		if r := e.settle(fan, w.artist, w.sponsor, fmt.Sprintf("ledger-%d", i), 50); r["success"] != true {
			t.Fatal(r)
		}
	}
	e.requestCashout(w.artist, 1000)

	list := `SELECT * FROM public.admin_list_transactions($1, $2::uuid, $3, $4::timestamptz, $5::timestamptz, $6, $7, $8)`
	all := e.mustRows(admin, list, nil, nil, nil, nil, nil, nil, nil, 100)
	if len(all) != 6 {
		t.Fatalf("ledger has %d rows, want 6", len(all))
	}
	paged := walk(t, e, admin, list, "id", func(last map[string]any) []any {
		if last == nil {
			return []any{nil, nil, nil, nil, nil, nil, nil, 2}
		}
		return []any{nil, nil, nil, nil, nil, last["created_at"], last["id"], 2}
	})
	for i := range all {
		if i >= len(paged) || paged[i]["id"] != all[i]["id"] {
			t.Fatalf("paged ledger differs at %d", i)
		}
	}
	for _, tc := range []struct {
		name string
		args []any
		want int
	}{
		{"kind", []any{"sponsored_stream", nil, nil, nil, nil, nil, nil, nil}, 3},
		{"artist's movements", []any{nil, w.artist, nil, nil, nil, nil, nil, nil}, 5},
		{"artist's, paged by 2", []any{nil, w.artist, nil, nil, nil, nil, nil, 2}, 2},
		{"sponsor's streams", []any{"sponsored_stream", w.sponsor, nil, nil, nil, nil, nil, nil}, 3},
		{"reference", []any{nil, nil, "ledger-1", nil, nil, nil, nil, nil}, 1},
		{"future", []any{nil, nil, nil, time.Now().Add(time.Hour), nil, nil, nil, nil}, 0},
		{"before now", []any{nil, nil, nil, nil, time.Now().Add(time.Hour), nil, nil, nil}, 6},
	} {
		if got := e.mustRows(admin, list, tc.args...); len(got) != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.name, len(got), tc.want)
		}
	}
	ref := e.mustRows(admin, list, nil, nil, "ledger-1", nil, nil, nil, nil, nil)[0]
	if ref["from_name"] == nil || ref["to_name"] == nil || ref["amount"] != 50.0 {
		t.Errorf("reference row %v", ref)
	}
	// The artist's movements by keyset, across both sides of the ledger.
	mine := walk(t, e, admin, list, "id", func(last map[string]any) []any {
		if last == nil {
			return []any{nil, w.artist, nil, nil, nil, nil, nil, 2}
		}
		return []any{nil, w.artist, nil, nil, nil, last["created_at"], last["id"], 2}
	})
	if len(mine) != 5 {
		t.Errorf("artist's movements paged: %d", len(mine))
	}

	sum := e.mustJSON(admin, `SELECT public.admin_ledger_summary()::text`)
	if sum["balanced"] != true || sum["wallets"].(map[string]any)["users"] != 3000.0 || sum["ledger"].(map[string]any)["users_net"] != 3000.0 {
		t.Errorf("summary %v", sum)
	}

	// Adjustments.
	if _, err := e.callJSON(admin, `SELECT public.admin_adjust_wallet($1, 100, '')::text`, w.fan); sqlMessage(err) != "A reason is required" {
		t.Errorf("adjust without reason: %v", err)
	}
	e.mustJSON(admin, `SELECT public.admin_adjust_wallet($1, 250.5, 'Refund for a failed top-up')::text`, w.fan)
	if _, err := e.callJSON(admin, `SELECT public.admin_adjust_wallet($1, -300, 'Clawback')::text`, w.fan); sqlMessage(err) != "Insufficient balance. Has ₦250.5, cannot debit ₦300" {
		t.Errorf("overdraw: %v", err)
	}
	e.mustJSON(admin, `SELECT public.admin_adjust_wallet($1, -50.5, 'Clawback')::text`, w.fan)
	if e.balance(w.fan) != "200.00" {
		t.Errorf("fan balance %s", e.balance(w.fan))
	}
	adj := e.auditRows("wallet.adjust")
	if len(adj) != 2 || adj[0]["reason"] != "Refund for a failed top-up" || adj[0]["before"].(map[string]any)["balance"] != 0.0 ||
		adj[0]["after"].(map[string]any)["balance"] != 250.5 {
		t.Errorf("adjust audit %v", adj)
	}
	if n := len(e.mustRows(admin, list, "adjustment", w.fan, nil, nil, nil, nil, nil, nil)); n != 2 {
		t.Errorf("adjustments in the ledger: %d", n)
	}
	if sum := e.mustJSON(admin, `SELECT public.admin_ledger_summary()::text`); sum["balanced"] != true {
		t.Errorf("after adjustments %v", sum)
	}
	// A wallet changed behind the ledger's back is caught.
	e.exec(`UPDATE public.wallets SET balance = balance + 1 WHERE id = $1`, w.fan2)
	e.exec(`UPDATE public.wallets SET balance = balance - 1 WHERE account = 'provider:seed'`)
	if sum := e.mustJSON(admin, `SELECT public.admin_ledger_summary()::text`); sum["balanced"] != false {
		t.Errorf("tampered wallet not caught: %v", sum)
	}
}

// TestAdminSponsorships: invites and sponsored tracks with spend and
// balance; ending a sponsorship unsponsors the track, ends the invite, and
// stops payments.
func TestAdminSponsorships(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	e.fund(w.sponsor, 1000)
	fan := e.freshFan()
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Fatal(reason)
	}
	if r := e.settle(fan, w.artist, w.sponsor, "spons-1", 50); r["success"] != true {
		t.Fatal(r)
	}
	artist2Track := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration) VALUES ('Second Song', $1, 200) RETURNING id::text`, w.artist2)
	if _, err := e.execAs(user(w.sponsor2), `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id) VALUES ($1, $2, $3)`, w.artist2, w.sponsor2, artist2Track); err != nil {
		t.Fatal(err)
	}
	invites := e.mustRows(admin, `SELECT * FROM public.admin_list_invites()`)
	if len(invites) != 2 {
		t.Fatalf("invites %v", invites)
	}
	var accepted map[string]any
	for _, i := range invites {
		if i["status"] == "accepted" {
			accepted = i
		}
	}
	if accepted == nil || accepted["spend_amount"] != 50.0 || accepted["spend_streams"] != 1.0 || accepted["sponsor_balance"] != 950.0 ||
		accepted["track_title"] != "Sponsored Song" {
		t.Errorf("accepted invite %v", accepted)
	}
	if pending := e.mustRows(admin, `SELECT * FROM public.admin_list_invites('pending')`); len(pending) != 1 || pending[0]["spend_amount"] != 0.0 {
		t.Errorf("pending invites %v", pending)
	}
	tracks := e.mustRows(admin, `SELECT * FROM public.admin_list_sponsored_tracks()`)
	if len(tracks) != 1 || tracks[0]["paid_amount"] != 50.0 || tracks[0]["sponsor_balance"] != 950.0 || tracks[0]["paid_streams"] != 1.0 {
		t.Errorf("sponsored tracks %v", tracks)
	}

	// End it: a stream made after that is not paid.
	later := e.freshFan()
	if valid, reason := e.listen(later, w.track, 31); !valid {
		t.Fatal(reason)
	}
	if _, err := e.callJSON(admin, `SELECT public.admin_end_sponsorship($1, '')::text`, w.track); sqlMessage(err) != "A reason is required" {
		t.Errorf("end without reason: %v", err)
	}
	res := e.mustJSON(admin, `SELECT public.admin_end_sponsorship($1, 'Sponsor contract ended')::text`, w.track)
	if res["invites_ended"] != 1.0 {
		t.Errorf("end = %v", res)
	}
	if got := scalar[string](e, `SELECT is_sponsored || '/' || coalesce(sponsor_id::text, '-') FROM public.tracks WHERE id = $1`, w.track); got != "false/-" {
		t.Errorf("track after end %s", got)
	}
	if r := e.settle(later, w.artist, w.sponsor, "spons-2", 50); r["success"] != false || r["error"] != "Track is not sponsored" {
		t.Errorf("payment after the end: %v", r)
	}
	if e.balance(w.sponsor) != "950.00" {
		t.Errorf("sponsor balance %s", e.balance(w.sponsor))
	}
	// Not re-sponsored without a new invite.
	if _, err := e.execAs(user(w.artist), `UPDATE public.tracks SET is_sponsored = true, sponsor_id = $2 WHERE id = $1`, w.track, w.sponsor); sqlState(err) != denied {
		t.Errorf("artist re-sponsors: %v", err)
	}
	if _, err := e.callJSON(admin, `SELECT public.admin_end_sponsorship($1, 'again')::text`, w.track); sqlMessage(err) != "Track is not sponsored" {
		t.Errorf("end twice: %v", err)
	}
	if s := scalar[string](e, `SELECT status FROM public.sponsor_artist_invites WHERE track_id = $1`, w.track); s != "ended" {
		t.Errorf("invite status %s", s)
	}
	for _, who := range []string{w.artist, w.sponsor} {
		if n := scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND title = 'Sponsorship ended'`, who); n != 1 {
			t.Errorf("%s told %d times", who, n)
		}
	}
	if a := e.auditRows("sponsorship.end"); len(a) != 1 || a[0]["reason"] != "Sponsor contract ended" {
		t.Errorf("audit %v", a)
	}
	e.conserved()
}
