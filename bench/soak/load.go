package main

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

const (
	// seedPassword is the Backline demo logins' password (sql/seed).
	seedPassword = "backline123"
	fanPassword  = "soak-fan-password"
	// streamsPerFan stays under the velocity rule (25 valid streams an
	// hour per user): a fan that made this many is retired and a new fan
	// signs up.
	streamsPerFan = 24
	streamPayment = 50
	topUpAmount   = 20000
	// trackColumns is what the app's track lists select.
	trackColumns = "id,title,artist_id,sponsor_id,is_sponsored,streams,cover_url,audio_url,duration,created_at,release_date,description,genre,is_explicit"
)

// user is one signed-in client: its session, its address, and (fans) how
// many streams it has made.
type user struct {
	id, email, password, role string
	ip                        string
	access, refresh           string
	signIn                    bool // the session is unknown (a token call got no answer): sign in first
	streams                   int
	// tok is the access token for the user's realtime client, which reads
	// it from another goroutine (realtime-js re-reads it on each heartbeat).
	tok atomic.Pointer[string]
}

// token is the user's current access token.
func (u *user) token() string {
	if t := u.tok.Load(); t != nil {
		return *t
	}
	return ""
}

type track struct {
	ID          string  `json:"id"`
	ArtistID    string  `json:"artist_id"`
	SponsorID   *string `json:"sponsor_id"`
	IsSponsored bool    `json:"is_sponsored"`
}

// world is the load generator's state: the client, the users by role (a
// user is held by one worker at a time, as a browser tab would be), the
// seed's tracks and what the server acknowledged.
type world struct {
	api                     *api
	runID                   string
	fans, artists, sponsors chan *user
	fanCount                atomic.Int64 // fans not retired
	fanTarget               int
	tracks, sponsored       []track
	seq                     atomic.Int64
	acks                    *acks
	rt                      *rtManager // nil without realtime clients
	// invitesOpen are sponsor/artist pairs that may hold a pending invite
	// (an answer was lost, or the seed holds one): the sponsor withdraws it
	// before inviting again. seedInvites are the pairs the seed holds a
	// pending invite for: basalt dev applies the seed on every start, so a
	// restart brings back an invite the run withdrew.
	invitesMu   sync.Mutex
	invitesOpen map[[2]string]bool
	seedInvites [][2]string
}

// seedApplied marks the seed's pending invites open again: basalt has
// started anew and applied the seed.
func (w *world) seedApplied() {
	w.invitesMu.Lock()
	defer w.invitesMu.Unlock()
	for _, pair := range w.seedInvites {
		w.invitesOpen[pair] = true
	}
}

// action is one thing a client does, made of one or more requests.
type action struct {
	name   string
	weight int
	run    func(ctx context.Context, w *world, rng *rand.Rand) error
}

// mix is the load: mostly reads, a steady share of fan streams (which pay
// sponsored artists), writes, storage, auth and the odd sponsor top-up.
var mix = []action{
	{"browse tracks", 20, browse},
	{"platform stats", 8, stats},
	{"read own wallet", 8, wallet},
	{"update profile", 5, profile},
	{"join early access", 3, earlyAccess},
	{"fan stream", 16, stream},
	{"upload avatar", 4, upload},
	{"download avatar", 8, download},
	{"password sign-in", 2, signInAction},
	{"refresh session", 5, refreshAction},
	{"sponsor top-up", 1, topUp},
	{"sponsorship invite, declined", 2, invite},
	{"notify a fan", 3, notifyFan},
	{"realtime broadcast", 2, broadcastAction},
}

func mixWeight() int {
	n := 0
	for _, a := range mix {
		n += a.weight
	}
	return n
}

// worker runs random actions until stop is closed. A request that got no
// answer or a 5xx makes it pause a moment, as a client backs off.
func (w *world) worker(stop <-chan struct{}, rng *rand.Rand) {
	ctx := context.Background()
	total := mixWeight()
	for {
		select {
		case <-stop:
			return
		default:
		}
		n := rng.IntN(total)
		for _, a := range mix {
			if n -= a.weight; n < 0 {
				if o := outcomeOf(a.run(ctx, w, rng)); o == noResponse || o == status5xx {
					time.Sleep(100 * time.Millisecond)
				}
				break
			}
		}
	}
}

func (w *world) nextIP() string {
	n := w.seq.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", 1+(n>>16)%250, (n>>8)&255, n&255)
}

func take(ch chan *user) *user {
	select {
	case u := <-ch:
		return u
	default:
		return nil
	}
}

func takeAny(rng *rand.Rand, chs ...chan *user) *user {
	i := rng.IntN(len(chs))
	for j := range chs {
		if u := take(chs[(i+j)%len(chs)]); u != nil {
			return u
		}
	}
	return nil
}

// release gives a user back; a fan that used its streams retires.
func (w *world) release(u *user) {
	switch u.role {
	case "fan":
		if u.streams >= streamsPerFan {
			w.fanCount.Add(-1)
			w.rt.leave(u)
			return
		}
		w.fans <- u
	case "artist":
		w.artists <- u
	default:
		w.sponsors <- u
	}
}

// session is what /token and /signup answer.
type session struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	User         struct {
		ID string `json:"id"`
	} `json:"user"`
	ID string `json:"id"` // /signup without a session answers the user itself
}

func (u *user) adopt(b []byte) error {
	var s session
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s.User.ID != "" {
		u.id = s.User.ID
	} else if s.ID != "" {
		u.id = s.ID
	}
	u.access, u.refresh, u.signIn = s.AccessToken, s.RefreshToken, s.AccessToken == ""
	if s.AccessToken != "" {
		u.tok.Store(&s.AccessToken)
	}
	return nil
}

// signIn is supabase.auth.signInWithPassword.
func (w *world) signIn(ctx context.Context, u *user) error {
	b, err := w.api.do(ctx, call{kind: "auth: password sign-in", method: http.MethodPost, path: "/auth/v1/token?grant_type=password",
		ip: u.ip, header: authHeaders(), want: http.StatusOK,
		json: map[string]any{"email": u.email, "password": u.password, "gotrue_meta_security": map[string]any{}}})
	if err != nil {
		u.signIn = true
		return err
	}
	return u.adopt(b)
}

// ready signs u in again when its session is unknown.
func (w *world) ready(ctx context.Context, u *user) error {
	if u.signIn {
		return w.signIn(ctx, u)
	}
	return nil
}

// signUpFan is supabase.auth.signUp with the app's metadata.
func (w *world) signUpFan(ctx context.Context) (*user, error) {
	n := w.seq.Add(1)
	u := &user{email: fmt.Sprintf("soak-%s-fan-%d@example.com", w.runID, n), password: fanPassword, role: "fan", ip: w.nextIP()}
	b, err := w.api.do(ctx, call{kind: "auth: sign-up", method: http.MethodPost, path: "/auth/v1/signup", ip: u.ip,
		header: authHeaders(), want: http.StatusOK, json: map[string]any{
			"email": u.email, "password": u.password,
			"data":                 map[string]any{"role": "fan", "display_name": fmt.Sprintf("Soak fan %d", n), "username": fmt.Sprintf("soak_%s_%d", w.runID, n)},
			"gotrue_meta_security": map[string]any{}, "code_challenge": nil, "code_challenge_method": nil,
		}})
	if err != nil {
		return nil, err
	}
	if err := u.adopt(b); err != nil || u.id == "" {
		return nil, fmt.Errorf("sign-up answer without a user: %s", clip(b))
	}
	w.acks.add(func(a *acks) { a.signups = append(a.signups, u.email) })
	w.fanCount.Add(1)
	w.rt.open(u)
	return u, nil
}

// fan takes a free fan, or signs a new one up while fewer than the
// target are in play (fans retire after streamsPerFan streams).
func (w *world) fan(ctx context.Context) (*user, error) {
	if u := take(w.fans); u != nil {
		return u, nil
	}
	if w.fanCount.Load() >= int64(w.fanTarget) {
		return nil, nil
	}
	return w.signUpFan(ctx)
}

// browse lists tracks as the home page does, as a visitor or a fan.
func browse(ctx context.Context, w *world, rng *rand.Rand) error {
	q := url.Values{"select": {trackColumns}, "order": {"streams.desc,created_at.desc"}, "limit": {"24"}}
	c := call{kind: "rest: list tracks", method: http.MethodGet, path: "/rest/v1/tracks?" + q.Encode(), ip: w.nextIP(),
		header: rest(http.MethodGet), want: http.StatusOK}
	if rng.IntN(2) == 0 {
		if u := take(w.fans); u != nil {
			defer w.release(u)
			if err := w.ready(ctx, u); err != nil {
				return err
			}
			c.token, c.ip = u.access, u.ip
		}
	}
	_, err := w.api.do(ctx, c)
	return err
}

func stats(ctx context.Context, w *world, _ *rand.Rand) error {
	_, err := w.api.do(ctx, call{kind: "rest: rpc get_platform_stats", method: http.MethodPost, path: "/rest/v1/rpc/get_platform_stats",
		ip: w.nextIP(), json: map[string]any{}, header: rest(http.MethodPost), want: http.StatusOK})
	return err
}

func wallet(ctx context.Context, w *world, rng *rand.Rand) error {
	u := takeAny(rng, w.fans, w.artists, w.sponsors)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	_, err := w.api.do(ctx, call{kind: "rest: read own wallet", method: http.MethodGet,
		path:  "/rest/v1/wallets?" + url.Values{"select": {"balance"}, "user_id": {"eq." + u.id}}.Encode(),
		token: u.access, ip: u.ip, header: rest(http.MethodGet), want: http.StatusOK,
		check: func(b []byte) error {
			var rows []map[string]any
			if err := json.Unmarshal(b, &rows); err != nil || len(rows) != 1 {
				return fmt.Errorf("want one wallet, got %s", clip(b))
			}
			return nil
		}})
	return err
}

func profile(ctx context.Context, w *world, rng *rand.Rand) error {
	u := takeAny(rng, w.fans, w.artists)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	bio := fmt.Sprintf("Soak bio %s-%d", w.runID, w.seq.Add(1))
	_, err := w.api.do(ctx, call{kind: "rest: update profile", method: http.MethodPatch,
		path: "/rest/v1/public_profiles?id=eq." + u.id, token: u.access, ip: u.ip,
		json: map[string]any{"bio": bio}, header: rest(http.MethodPatch), want: http.StatusNoContent})
	w.acks.add(func(a *acks) { a.bio(u.id, bio, outcomeOf(err)) })
	return err
}

func earlyAccess(ctx context.Context, w *world, _ *rand.Rand) error {
	email := fmt.Sprintf("soak-%s-early-%d@example.com", w.runID, w.seq.Add(1))
	_, err := w.api.do(ctx, call{kind: "rest: insert early access", method: http.MethodPost, path: "/rest/v1/early_access_subscribers",
		ip: w.nextIP(), json: map[string]any{"email": email, "role": "fan"}, header: rest(http.MethodPost), want: http.StatusCreated})
	if err == nil {
		w.acks.add(func(a *acks) { a.early = append(a.early, email) })
	}
	return err
}

// stream is a fan's listen as the player makes it: start_play when the
// track starts, the stream row after 30 s, then for a sponsored track the
// payment through transfer-payment. The 30 s are not waited for: the
// service role moves the play's start back 35 s, as the app's SQL tests
// do, so the server's own clock check still decides.
func stream(ctx context.Context, w *world, rng *rand.Rand) error {
	u, err := w.fan(ctx)
	if err != nil || u == nil {
		if err != nil {
			return err
		}
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	tr := w.tracks[rng.IntN(len(w.tracks))]
	if rng.IntN(10) < 7 {
		tr = w.sponsored[rng.IntN(len(w.sponsored))]
	}
	u.ip = w.nextIP() // every stream from another address: the per-address limits stay out of the way
	b, err := w.api.do(ctx, call{kind: "rest: rpc start_play", method: http.MethodPost, path: "/rest/v1/rpc/start_play",
		token: u.access, ip: u.ip, json: map[string]any{"p_track_id": tr.ID}, header: rest(http.MethodPost), want: http.StatusOK})
	if err != nil {
		return err
	}
	var play string
	if err := json.Unmarshal(b, &play); err != nil {
		return err
	}
	if _, err := w.api.do(ctx, call{kind: "rest: play clock skip (service role)", method: http.MethodPatch,
		path: "/rest/v1/play_sessions?id=eq." + play, key: w.api.service, token: w.api.service,
		json:   map[string]any{"started_at": time.Now().Add(-35 * time.Second).UTC().Format(time.RFC3339Nano)},
		header: rest(http.MethodPatch), want: http.StatusNoContent}); err != nil {
		return err
	}
	u.streams++ // counted even when the answer is lost: it may have counted
	var row struct {
		ID      string  `json:"id"`
		IsValid bool    `json:"is_valid"`
		Reason  *string `json:"invalid_reason"`
	}
	if _, err := w.api.do(ctx, call{kind: "rest: insert stream", method: http.MethodPost,
		path:  "/rest/v1/streams?" + url.Values{"select": {"id,is_valid,invalid_reason"}}.Encode(),
		token: u.access, ip: u.ip, want: http.StatusCreated,
		json:   map[string]any{"track_id": tr.ID, "user_id": u.id, "duration": 31, "is_valid": true, "ip_address": u.ip},
		header: rest(http.MethodPost, "Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"),
		check: func(b []byte) error {
			if err := json.Unmarshal(b, &row); err != nil {
				return err
			}
			if !row.IsValid {
				return fmt.Errorf("stream not counted: %v", deref(row.Reason))
			}
			return nil
		}}); err != nil {
		return err
	}
	w.acks.add(func(a *acks) { a.streams = append(a.streams, row.ID) })
	if !tr.IsSponsored || tr.SponsorID == nil {
		return nil
	}
	ref := "stream-" + uuid.NewString()
	_, err = w.api.do(ctx, call{kind: "fn: transfer-payment", method: http.MethodPost, path: "/functions/v1/transfer-payment",
		token: u.access, ip: u.ip, header: fnHeaders(), want: http.StatusOK,
		json:  map[string]any{"artist_id": tr.ArtistID, "sponsor_id": *tr.SponsorID, "reference": ref, "amount": streamPayment},
		check: successIs("success")})
	if err == nil {
		w.acks.add(func(a *acks) { a.payments = append(a.payments, ref) })
	}
	return err
}

// successIs checks a function's answer for field: true.
func successIs(field string) func([]byte) error {
	return func(b []byte) error {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		if m[field] != true {
			return errors.New("refused: " + clip(b))
		}
		return nil
	}
}

func deref(s *string) string {
	if s == nil {
		return "(no reason)"
	}
	return *s
}

// topUp is a sponsor's wallet top-up through the local payment sandbox,
// the way the browser does it: create-payment, Pay on the hosted page
// (the sandbox sends its webhook, then the browser back), then verify.
// The webhook and the verify both complete the payment: it must credit
// once.
func topUp(ctx context.Context, w *world, rng *rand.Rand) error {
	u := take(w.sponsors)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	var co struct {
		TxRef       string `json:"tx_ref"`
		CheckoutURL string `json:"checkout_url"`
	}
	b, err := w.api.do(ctx, call{kind: "fn: create-payment", method: http.MethodPost, path: "/functions/v1/create-payment",
		token: u.access, ip: u.ip, header: fnHeaders(), want: http.StatusOK, check: successIs("success"),
		json: map[string]any{"provider": "paystack", "purpose": "topup", "amount": topUpAmount}})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &co); err != nil {
		return err
	}
	if _, err := w.api.do(ctx, call{kind: "sandbox: checkout pay", method: http.MethodPost, path: co.CheckoutURL, key: "-",
		ip: u.ip, raw: []byte("action=pay"), header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		want: http.StatusSeeOther}); err != nil {
		return err
	}
	_, err = w.api.do(ctx, call{kind: "fn: paystack-verify", method: http.MethodPost, path: "/functions/v1/paystack-verify",
		token: u.access, ip: u.ip, header: fnHeaders(), want: http.StatusOK, check: successIs("status"),
		json: map[string]any{"reference": co.TxRef, "userId": u.id, "verification": false}})
	if err == nil {
		w.acks.add(func(a *acks) { a.topups[co.TxRef] = topUpAmount })
	}
	return err
}

// upload is storage-js upload of a small avatar into the user's folder.
func upload(ctx context.Context, w *world, rng *rand.Rand) error {
	u := takeAny(rng, w.fans, w.artists)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	name := fmt.Sprintf("%s/soak-%s-%d.png", u.id, w.runID, w.seq.Add(1))
	data := pngish(rng)
	_, err := w.api.do(ctx, call{kind: "storage: upload", method: http.MethodPost, path: "/storage/v1/object/avatars/" + name,
		token: u.access, ip: u.ip, raw: data, want: http.StatusOK,
		header: map[string]string{"Content-Type": "image/png", "Cache-Control": "max-age=3600", "x-upsert": "false"}})
	if err == nil {
		w.acks.add(func(a *acks) { a.uploads = append(a.uploads, stored{name, md5.Sum(data)}) })
	}
	return err
}

// pngish is 1 to 16 KB of random bytes behind a PNG signature.
func pngish(rng *rand.Rand) []byte {
	b := make([]byte, 1024+rng.IntN(15*1024))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

// download reads back an acknowledged upload, as a visitor, and checks
// its bytes.
func download(ctx context.Context, w *world, rng *rand.Rand) error {
	obj, ok := w.acks.randomUpload(rng)
	if !ok {
		return browse(ctx, w, rng)
	}
	_, err := w.api.do(ctx, call{kind: "storage: download", method: http.MethodGet, path: "/storage/v1/object/avatars/" + obj.name,
		ip: w.nextIP(), want: http.StatusOK, check: sameBytes(obj.sum)})
	return err
}

func sameBytes(sum [16]byte) func([]byte) error {
	return func(b []byte) error {
		if md5.Sum(b) != sum {
			return fmt.Errorf("the object's bytes differ from the upload (%d bytes read)", len(b))
		}
		return nil
	}
}

func signInAction(ctx context.Context, w *world, rng *rand.Rand) error {
	u := takeAny(rng, w.fans, w.artists)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	return w.signIn(ctx, u)
}

// refreshAction is what auth-js's auto-refresh sends; the refresh token
// rotates.
func refreshAction(ctx context.Context, w *world, rng *rand.Rand) error {
	u := takeAny(rng, w.fans, w.artists)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	if err := w.ready(ctx, u); err != nil {
		return err
	}
	b, err := w.api.do(ctx, call{kind: "auth: refresh token", method: http.MethodPost, path: "/auth/v1/token?grant_type=refresh_token",
		ip: u.ip, header: authHeaders(), want: http.StatusOK, json: map[string]any{"refresh_token": u.refresh}})
	if err != nil {
		u.signIn = true // the old token may be spent already
		return err
	}
	return u.adopt(b)
}

// stored is an acknowledged upload.
type stored struct {
	name string
	sum  [16]byte
}

// bioLog is what a user's bio may be: the last acknowledged update, or
// an update sent after it whose answer was lost.
type bioLog struct {
	acked   string
	pending []string
}

// acks is everything the server acknowledged (2xx, and for functions
// success), checked against the database at the end.
type acks struct {
	mu       sync.Mutex
	payments []string           // transfer-payment references answered success
	streams  []string           // stream ids answered valid
	topups   map[string]float64 // tx_ref → amount, verified
	early    []string
	uploads  []stored
	signups  []string
	bios     map[string]*bioLog
}

func newAcks() *acks {
	return &acks{topups: map[string]float64{}, bios: map[string]*bioLog{}}
}

func (a *acks) add(f func(*acks)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a)
}

// bio records an update's outcome: acknowledged, lost (either way
// possible), or refused (not applied).
func (a *acks) bio(uid, v string, o outcome) {
	l := a.bios[uid]
	if l == nil {
		l = &bioLog{}
		a.bios[uid] = l
	}
	switch o {
	case okay:
		l.acked, l.pending = v, nil
	case noResponse, status5xx:
		l.pending = append(l.pending, v)
	}
}

func (a *acks) randomUpload(rng *rand.Rand) (stored, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.uploads) == 0 {
		return stored{}, false
	}
	return a.uploads[rng.IntN(len(a.uploads))], true
}
