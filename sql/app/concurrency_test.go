package app_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// TestConcurrentMoney runs hundreds of sponsored streams and ledger
// transfers at once over overlapping wallets (four sponsors pay four
// artists while transfers shuffle money between the same wallets): no
// deadlock, no negative balance, money conserved, each stream paid at most
// once, and no more paid than the sponsors had.
func TestConcurrentMoney(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pool, err := pg.Connect(e.ctx, e.db.UserURL, func(c *pgxpool.Config) { c.MaxConns = 34 })
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	const nArtists, nSponsors, nFans, nTransfers = 4, 4, 240, 240
	var artists, sponsors []string
	for i := 0; i < nArtists; i++ {
		artists = append(artists, e.signUp("artist"))
		sponsors = append(sponsors, e.signUp("sponsor"))
		e.fund(sponsors[i], 1500)
	}
	type song struct{ id, artist, sponsor string }
	var songs []song
	for i := 0; i < 8; i++ {
		a, s := artists[i%nArtists], sponsors[(i/2)%nSponsors]
		id := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, is_sponsored, sponsor_id) VALUES ($1, $2, true, $3) RETURNING id::text`,
			fmt.Sprintf("Song %d", i), a, s)
		songs = append(songs, song{id, a, s})
	}
	fans := make([]caller, nFans)
	for i := range fans {
		fans[i] = caller{uid: e.signUp("fan"), ip: fmt.Sprintf("172.16.%d.%d", i/200, i%200)}
		if err := e.query(fans[i], `SELECT public.start_play($1)::text`, []any{songs[i%len(songs)].id}, new(string)); err != nil {
			t.Fatal(err)
		}
	}
	e.exec(`UPDATE public.play_sessions SET started_at = now() - interval '31 seconds'`)

	as := func(req pg.Caller, fn func(tx pgx.Tx) error) error { return pg.AsCaller(e.ctx, pool, req, fn) }
	var mu sync.Mutex
	paid, refused := 0, map[string]int{}
	record := func(ok bool, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if ok {
			paid++
		} else {
			refused[msg]++
		}
	}
	jobs := make(chan func() error)
	var wg sync.WaitGroup
	errs := make(chan error, nFans+nTransfers)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				if err := job(); err != nil {
					errs <- err
				}
			}
		}()
	}
	streamJob := func(i int) func() error {
		return func() error {
			fan, s := fans[i], songs[i%len(songs)]
			var valid bool
			err := as(fan.request(), func(tx pgx.Tx) error {
				return tx.QueryRow(e.ctx, `INSERT INTO public.streams (track_id, user_id, duration) VALUES ($1, $2, 31) RETURNING is_valid`,
					s.id, fan.uid).Scan(&valid)
			})
			if err != nil || !valid {
				return fmt.Errorf("stream %d: valid=%v %v", i, valid, err)
			}
			ref := fmt.Sprintf("stream-%d", i)
			var first, again, other string
			for _, step := range []struct {
				ref string
				out *string
			}{{ref, &first}, {ref, &again}, {ref + "-b", &other}} {
				err := as(fan.request(), func(tx pgx.Tx) error {
					return tx.QueryRow(e.ctx, `SELECT public.settle_sponsored_stream($1, $2, $3, 50)::text`, s.artist, s.sponsor, step.ref).Scan(step.out)
				})
				if err != nil {
					return fmt.Errorf("settle %s: %w", step.ref, err)
				}
			}
			if first != again {
				return fmt.Errorf("reference %s answered %s then %s", ref, first, again)
			}
			// A stream is paid at most once: after a payment, another
			// reference finds nothing to pay; after a refusal (the sponsor
			// was short) it may pay if money arrived meanwhile.
			var res, res2 struct {
				Success bool
				Error   string
			}
			if err := jsonUnmarshal(first, &res); err != nil {
				return err
			}
			if err := jsonUnmarshal(other, &res2); err != nil {
				return err
			}
			if res.Success && other != `{"error": "Track not found", "success": false, "transaction": null}` {
				return fmt.Errorf("second reference for a paid stream: %s", other)
			}
			record(res2.Success, res2.Error)
			record(res.Success, res.Error)
			return nil
		}
	}
	wallets := append(append([]string{}, artists...), sponsors...)
	transferJob := func(i int) func() error {
		return func() error {
			from, to := wallets[rand.IntN(len(wallets))], wallets[rand.IntN(len(wallets))]
			for to == from {
				to = wallets[rand.IntN(len(wallets))]
			}
			amount := 1 + rand.IntN(300)
			err := as(service(), func(tx pgx.Tx) error {
				_, err := tx.Exec(e.ctx, `SELECT public.transfer_funds($1, $2, $3, $4, 'transfer')`, from, to, amount, fmt.Sprintf("xfer-%d", i))
				return err
			})
			if err != nil && !(sqlState(err) == "P0001" && len(sqlMessage(err)) > 18 && sqlMessage(err)[:18] == "insufficient funds") {
				return fmt.Errorf("transfer %d: %w", i, err)
			}
			return nil
		}
	}
	for i := 0; i < max(nFans, nTransfers); i++ {
		if i < nFans {
			jobs <- streamJob(i)
		}
		if i < nTransfers {
			jobs <- transferJob(i)
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	e.conserved()
	if got := scalar[string](e, `SELECT sum(balance)::text FROM public.wallets WHERE kind = 'user'`); got != "6000.00" {
		t.Errorf("user wallets hold %s, want the 6000.00 funded", got)
	}
	ledger := scalar[string](e, `SELECT count(*) || '/' || count(DISTINCT stream_id) FROM public.transactions WHERE kind = 'sponsored_stream'`)
	marked := scalar[int64](e, `SELECT count(*) FROM public.streams WHERE paid_reference IS NOT NULL`)
	if want := fmt.Sprintf("%d/%d", paid, paid); ledger != want || marked != int64(paid) {
		t.Errorf("payments %d, ledger rows/distinct streams %s, streams marked paid %d", paid, ledger, marked)
	}
	if paid == 0 || len(refused) == 0 {
		t.Errorf("paid %d, refused %v: the run should both pay and refuse", paid, refused)
	}
	for msg := range refused {
		// Fans read the reason without the sponsor's figures.
		if msg != "Track not found" && msg != "Insufficient sponsor balance" {
			t.Errorf("unexpected refusal %q (%d)", msg, refused[msg])
		}
	}
	if got := scalar[string](e, `SELECT sum(streams) || '/' || (SELECT count(*) FROM public.streams WHERE is_valid) FROM public.tracks`); got != fmt.Sprintf("%d/%d", nFans, nFans) {
		t.Errorf("track counters/valid streams = %s", got)
	}
	t.Logf("%d sponsored streams paid, refusals %v", paid, refused)
}

// TestConcurrentSameReference sends one reference many times at once (a
// client retrying): one payment, and every answer is that payment.
func TestConcurrentSameReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.sponsor, 1000)
	fan := e.freshFan()
	if valid, reason := e.listen(fan, w.track, 31); !valid {
		t.Fatal(reason)
	}
	answers := make([]string, 12)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.query(fan, settleSQL, []any{w.artist, w.sponsor, "stream-retry", 50}, &answers[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a != answers[0] || a == "" {
			t.Fatalf("answers differ: %q vs %q", a, answers[0])
		}
	}
	if e.balance(w.sponsor) != "950.00" || e.balance(w.artist) != "50.00" {
		t.Errorf("balances %s/%s after retries", e.balance(w.sponsor), e.balance(w.artist))
	}
}
