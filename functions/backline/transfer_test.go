package backline_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// sponsorship is a sponsored track with its three parties.
type sponsorship struct {
	artist, artistTok   string
	sponsor, sponsorTok string
	track               string
}

var refSeq atomic.Int64

// sponsoredTrack creates an artist's track sponsored by a sponsor whose
// invite was accepted, and puts fund naira in the sponsor's wallet.
func (b *testBundle) sponsoredTrack(fund string, sponsored bool) sponsorship {
	b.t.Helper()
	var s sponsorship
	s.artist, s.artistTok = b.signUp("artist")
	s.sponsor, s.sponsorTok = b.signUp("sponsor")
	s.track = scalar[string](b, `INSERT INTO public.tracks (title, artist_id, sponsor_id, is_sponsored)
		VALUES ('Sponsored song', $1, $2, $3) RETURNING id::text`, s.artist, s.sponsor, sponsored)
	if sponsored {
		scalar[string](b, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, status)
			VALUES ($1, $2, $3, 'accepted') RETURNING id::text`, s.artist, s.sponsor, s.track)
	}
	if fund != "0" {
		scalar[string](b, `SELECT backline.fund_wallet($1, $2::numeric, $3)::text`, s.sponsor, fund,
			fmt.Sprintf("test-fund-%d", refSeq.Add(1)))
	}
	return s
}

// as runs fn as a signed-in user from the stand-in gateway's address, the
// way /rest/v1 would.
func (b *testBundle) as(uid string, fn func(pgx.Tx) error) error {
	claims, _ := json.Marshal(map[string]string{"sub": uid, "role": "authenticated"})
	headers, _ := json.Marshal(map[string]string{"x-real-ip": b.clientIP.Load().(string)})
	return pg.AsCaller(b.ctx, b.db.User, pg.Caller{Role: "authenticated", Claims: claims, Headers: headers}, fn)
}

// listen makes uid really stream the track: the play starts, 40 s pass
// (the play's start is moved back), and the stream is recorded.
func (b *testBundle) listen(uid, track string) bool {
	b.t.Helper()
	var play string
	if err := b.as(uid, func(tx pgx.Tx) error {
		return tx.QueryRow(b.ctx, `SELECT public.start_play($1)::text`, track).Scan(&play)
	}); err != nil {
		b.t.Fatalf("start_play: %v", err)
	}
	if _, err := b.db.Admin.Exec(b.ctx, `UPDATE public.play_sessions SET started_at = now() - interval '40 seconds' WHERE id = $1`, play); err != nil {
		b.t.Fatal(err)
	}
	var valid bool
	if err := b.as(uid, func(tx pgx.Tx) error {
		return tx.QueryRow(b.ctx, `INSERT INTO public.streams (track_id, user_id, duration) VALUES ($1, $2, 40)
			RETURNING is_valid`, track, uid).Scan(&valid)
	}); err != nil {
		b.t.Fatalf("record stream: %v", err)
	}
	return valid
}

func (b *testBundle) transfer(tok string, s sponsorship, ref string, amount any) (int, map[string]any) {
	b.t.Helper()
	return b.call("transfer-payment", tok, map[string]any{"artist_id": s.artist, "sponsor_id": s.sponsor,
		"reference": ref, "amount": amount})
}

func newRef() string { return fmt.Sprintf("stream-%d-test", refSeq.Add(1)) }

func TestTransferPayment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.sponsoredTrack("1000", true)
	fan, fanTok := b.signUp("fan")
	if !b.listen(fan, s.track) {
		t.Fatal("the fan's stream is not valid")
	}
	ref := newRef()
	status, got := b.transfer(fanTok, s, ref, 50)
	// The balances after the transfer are the artist's and the sponsor's
	// own, not the fan's to read.
	want := map[string]any{"success": true, "error": nil,
		"transaction": map[string]any{"amount": 50.0, "artist_balance": nil, "sponsor_balance": nil}}
	if status != 200 || !cmp.Equal(want, got) {
		t.Fatalf("transfer-payment = %d %v\nwant %v", status, got, want)
	}
	// The same reference again: the first result, no second transfer.
	status, again := b.transfer(fanTok, s, ref, 50)
	if status != 200 || !cmp.Equal(want, again) {
		t.Errorf("repeat = %d %v, want the first result", status, again)
	}
	// A new reference without a new stream pays nothing.
	status, other := b.transfer(fanTok, s, newRef(), 50)
	if status != 200 || other["success"] != false || other["error"] != "Track not found" {
		t.Errorf("second payment for one stream = %d %v", status, other)
	}
	if got := b.balance(s.artist); got != "50.00" {
		t.Errorf("artist balance = %s, want 50.00", got)
	}
	if got := b.balance(s.sponsor); got != "950.00" {
		t.Errorf("sponsor balance = %s, want 950.00", got)
	}
}

// TestTransferTrack: a body that names its track (track_id) is paid only
// for a stream of that track: a fan who streamed one of an artist's
// sponsored tracks cannot have it paid as another, and a track_id that is
// not a UUID is a malformed body.
func TestTransferTrack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.sponsoredTrack("1000", true)
	other := scalar[string](b, `INSERT INTO public.tracks (title, artist_id, sponsor_id, is_sponsored)
		VALUES ('Second sponsored song', $1, $2, true) RETURNING id::text`, s.artist, s.sponsor)
	scalar[string](b, `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, status)
		VALUES ($1, $2, $3, 'accepted') RETURNING id::text`, s.artist, s.sponsor, other)
	fan, fanTok := b.signUp("fan")
	if !b.listen(fan, s.track) {
		t.Fatal("the fan's stream is not valid")
	}
	body := func(track string) map[string]any {
		return map[string]any{"artist_id": s.artist, "sponsor_id": s.sponsor, "track_id": track, "reference": newRef(), "amount": 50}
	}
	status, got := b.call("transfer-payment", fanTok, body(other))
	if want := map[string]any{"success": false, "error": "Track not found", "transaction": nil}; status != 200 || !cmp.Equal(want, got) {
		t.Errorf("paying a stream of another track = %d %v, want 200 %v", status, got, want)
	}
	status, got = b.call("transfer-payment", fanTok, body("not-a-track"))
	if want := map[string]any{"success": false, "error": "track_id must be a UUID"}; status != 400 || !cmp.Equal(want, got) {
		t.Errorf("a track_id that is not a UUID = %d %v, want 400 %v", status, got, want)
	}
	if a, sp := b.balance(s.artist), b.balance(s.sponsor); a != "0.00" || sp != "1000.00" {
		t.Fatalf("balances after the refusals: artist %s, sponsor %s; want 0.00 and 1000.00", a, sp)
	}
	status, got = b.call("transfer-payment", fanTok, body(s.track))
	if status != 200 || got["success"] != true {
		t.Errorf("paying the streamed track = %d %v", status, got)
	}
	if a := b.balance(s.artist); a != "50.00" {
		t.Errorf("artist balance = %s, want 50.00", a)
	}
}

// TestTransferRefusals: business refusals are HTTP 200 with success:false
// and the spec's reason, and move no money.
func TestTransferRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fund      string
		sponsored bool
		caller    string // fan, artist, fan-no-stream
		amount    any
		wantError string
	}{
		{"a fan who never streamed", "1000", true, "fan-no-stream", 50, "Track not found"},
		{"the artist paying themselves", "1000", true, "artist", 50, "Artist cannot stream own tracks for payment"},
		{"an unsponsored track", "1000", false, "fan", 50, "Track is not sponsored"},
		{"a sponsor without money", "20", true, "fan", 50, "Insufficient sponsor balance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			s := b.sponsoredTrack(tt.fund, tt.sponsored)
			tok := s.artistTok
			if tt.caller != "artist" {
				var fan string
				fan, tok = b.signUp("fan")
				if tt.caller == "fan" && !b.listen(fan, s.track) {
					t.Fatal("the fan's stream is not valid")
				}
			}
			status, got := b.transfer(tok, s, newRef(), tt.amount)
			want := map[string]any{"success": false, "error": tt.wantError, "transaction": nil}
			if status != 200 || !cmp.Equal(want, got) {
				t.Errorf("transfer-payment = %d %v, want 200 %v", status, got, want)
			}
			if bal := b.balance(s.artist); bal != "0.00" {
				t.Errorf("artist balance = %s, want 0.00", bal)
			}
			if bal, want := b.balance(s.sponsor), tt.fund+".00"; bal != want {
				t.Errorf("sponsor balance = %s, want %s", bal, want)
			}
		})
	}
}

// TestTransferAmount: the body's amount is only a claim. Omitted, null or
// different, the configured amount (₦50) is paid and the answer says so.
func TestTransferAmount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.sponsoredTrack("1000", true)
	claims := []struct {
		name  string
		claim any // absent: the key is left out
	}{
		{"omitted", absent{}}, {"null", nil}, {"the configured one", 50}, {"more", 5000}, {"less", 0.01},
		{"negative", -50}, {"as text", "50"},
	}
	paid := 0
	for i, c := range claims {
		// One listener per address: at most 3 streams of a track count per address.
		b.clientIP.Store(fmt.Sprintf("203.0.113.%d", 10+i))
		fan, fanTok := b.signUp("fan")
		if !b.listen(fan, s.track) {
			t.Fatal("the fan's stream is not valid")
		}
		body := map[string]any{"artist_id": s.artist, "sponsor_id": s.sponsor, "reference": newRef()}
		if _, ok := c.claim.(absent); !ok {
			body["amount"] = c.claim
		}
		status, got := b.call("transfer-payment", fanTok, body)
		tx, _ := got["transaction"].(map[string]any)
		if status != 200 || got["success"] != true || tx["amount"] != 50.0 {
			t.Errorf("amount %s: %d %v, want ₦50 paid", c.name, status, got)
			continue
		}
		paid++
		if bal, want := b.balance(s.artist), fmt.Sprintf("%d.00", 50*paid); bal != want {
			t.Errorf("amount %s: artist balance %s, want %s", c.name, bal, want)
		}
	}
	if bal, want := b.balance(s.sponsor), fmt.Sprintf("%d.00", 1000-50*paid); bal != want {
		t.Errorf("sponsor balance %s, want %s", bal, want)
	}
}

// absent marks a body key that is left out.
type absent struct{}

// TestTransferBalanceFigures: the refusal text comes through the function
// as the database words it for the caller: the sponsor reads the spec's
// message with the balance, a fan only the reason.
func TestTransferBalanceFigures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.sponsoredTrack("20", true)
	fan, fanTok := b.signUp("fan")
	if !b.listen(fan, s.track) {
		t.Fatal("the fan's stream is not valid")
	}
	// A sponsor cannot make a valid stream through the app; an import can.
	scalar[string](b, `INSERT INTO public.streams (track_id, user_id, duration, is_valid)
		VALUES ($1, $2, 31, true) RETURNING id::text`, s.track, s.sponsor)
	for _, c := range []struct{ who, tok, want string }{
		{"fan", fanTok, "Insufficient sponsor balance"},
		{"sponsor", s.sponsorTok, "Insufficient sponsor balance. Has 20, needs 50"},
	} {
		status, got := b.transfer(c.tok, s, newRef(), 50)
		want := map[string]any{"success": false, "error": c.want, "transaction": nil}
		if status != 200 || !cmp.Equal(want, got) {
			t.Errorf("%s: transfer-payment = %d %v, want 200 %v", c.who, status, got, want)
		}
	}
	if bal := b.balance(s.sponsor); bal != "20.00" {
		t.Errorf("sponsor balance = %s, want 20.00", bal)
	}
}

// TestTransferConcurrent: one stream, many simultaneous payment requests
// with different references: exactly one transfer.
func TestTransferConcurrent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.sponsoredTrack("1000", true)
	fan, fanTok := b.signUp("fan")
	if !b.listen(fan, s.track) {
		t.Fatal("the fan's stream is not valid")
	}
	var wg sync.WaitGroup
	var paid atomic.Int64
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, got := b.transfer(fanTok, s, newRef(), 50)
			if status != 200 {
				t.Errorf("status %d: %v", status, got)
			}
			if got["success"] == true {
				paid.Add(1)
			}
		}()
	}
	wg.Wait()
	if paid.Load() != 1 {
		t.Errorf("%d payments succeeded, want 1", paid.Load())
	}
	if bal := b.balance(s.artist); bal != "50.00" {
		t.Errorf("artist balance = %s, want 50.00", bal)
	}
}
