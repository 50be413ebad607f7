package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
)

// storageApp is the storage service on the app's database, behind the gateway.
type storageApp struct {
	t    *testing.T
	keys *jwt.Keys
	url  string
}

func (e *env) storage(t *testing.T) *storageApp {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	backend, err := fsbackend.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc, err := storage.New(storage.Config{}, e.db.Admin, e.db.User, keys, backend)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Storage: svc}, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return &storageApp{t: t, keys: keys, url: srv.URL + "/storage/v1"}
}

// do sends a request as uid ("" for a visitor with the anon key).
func (s *storageApp) do(method, path, uid string, body []byte, contentType string) (int, []byte) {
	s.t.Helper()
	bearer := s.keys.AnonKey
	if uid != "" {
		tok, err := s.keys.SignHS256(gojwt.MapClaims{"sub": uid, "role": "authenticated", "aud": "authenticated",
			"exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			s.t.Fatal(err)
		}
		bearer = tok
	}
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("apikey", s.keys.AnonKey)
	req.Header.Set("Authorization", "Bearer "+bearer)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return res.StatusCode, b
}

// sign asks storage for a signed URL of a track's audio as uid; "" when refused.
func (s *storageApp) sign(uid, name string) string {
	s.t.Helper()
	code, body := s.do(http.MethodPost, "/object/sign/tracks/"+name, uid, []byte(`{"expiresIn":600}`), "application/json")
	if code != http.StatusOK {
		return ""
	}
	var out struct {
		SignedURL string `json:"signedURL"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.SignedURL == "" {
		s.t.Fatalf("sign %s: %d %s", name, code, body)
	}
	return out.SignedURL
}

// TestTrackAudioIsSignedByPostgres: track audio is a private bucket. Storage
// signs a URL for it only when backline.may_play_audio (the storage.objects
// SELECT policy) lets the caller play it: the audio of an active track for
// anyone (signed-in fans in full, visitors for the spec's preview), a hidden
// or removed track's audio and an unreleased upload only for its artist and
// admins; a suspended account is a visitor. The public URL the row keeps no
// longer serves the bytes; a signed URL serves them, byte ranges included.
func TestTrackAudioIsSignedByPostgres(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	st := e.storage(t)
	if pub := scalar[bool](e, `SELECT public FROM storage.buckets WHERE id = 'tracks'`); pub {
		t.Fatal("the tracks bucket is public")
	}

	audio := bytes.Repeat([]byte("RIFF-audio-"), 100)
	upload := func(artist, file string) string {
		t.Helper()
		name := artist + "/" + file
		if code, body := st.do(http.MethodPost, "/object/tracks/"+name, artist, audio, "audio/mpeg"); code != http.StatusOK {
			t.Fatalf("upload %s: %d %s", name, code, body)
		}
		return name
	}
	release := func(artist, name, status string) {
		t.Helper()
		e.exec(`INSERT INTO public.tracks (title, artist_id, audio_url, genre, status) VALUES ('T', $1, $2, 'Afrobeats', $3)`,
			artist, "/storage/v1/object/public/tracks/"+name, status)
	}
	active := upload(w.artist, "active.mp3")
	release(w.artist, active, "active")
	hidden := upload(w.artist, "hidden.mp3")
	release(w.artist, hidden, "hidden")
	removed := upload(w.artist, "removed.mp3")
	release(w.artist, removed, "removed")
	unreleased := upload(w.artist, "draft.mp3")

	suspended := e.signUp("fan")
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, suspended)

	for _, tc := range []struct {
		who, uid, name string
		may            bool
	}{
		{"a signed-in fan, an active track", w.fan, active, true},
		{"a visitor (preview), an active track", "", active, true},
		{"the artist, an active track", w.artist, active, true},
		{"a signed-in fan, a hidden track", w.fan, hidden, false},
		{"another fan, a hidden track", w.fan2, hidden, false},
		{"a visitor, a hidden track", "", hidden, false},
		{"a signed-in fan, a removed track", w.fan, removed, false},
		{"a visitor, a removed track", "", removed, false},
		{"a suspended fan, a hidden track", suspended, hidden, false},
		{"the artist, the hidden track", w.artist, hidden, true},
		{"an admin, the hidden track", w.admin, hidden, true},
		{"another artist, an unreleased upload", w.artist2, unreleased, false},
		{"a fan, an unreleased upload", w.fan, unreleased, false},
		{"a visitor, an unreleased upload", "", unreleased, false},
		{"the artist, the unreleased upload", w.artist, unreleased, true},
	} {
		if got := st.sign(tc.uid, tc.name) != ""; got != tc.may {
			t.Errorf("%s: signed = %v, want %v", tc.who, got, tc.may)
		}
	}

	// The bulk form asks the same policy.
	code, body := st.do(http.MethodPost, "/object/sign/tracks", w.fan, []byte(`{"expiresIn":600,"paths":["`+active+`","`+hidden+`"]}`), "application/json")
	var many []struct {
		Path      string  `json:"path"`
		SignedURL *string `json:"signedURL"`
	}
	if err := json.Unmarshal(body, &many); code != http.StatusOK || err != nil || len(many) != 2 {
		t.Fatalf("bulk sign: %d %s", code, body)
	}
	if many[0].SignedURL == nil || many[1].SignedURL != nil {
		t.Errorf("bulk sign as a fan: %s", body)
	}

	// Hiding a track takes its audio away at once.
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE audio_url = $1`, "/storage/v1/object/public/tracks/"+active)
	if st.sign(w.fan, active) != "" {
		t.Error("a fan signed the audio of a track hidden since")
	}
	e.exec(`UPDATE public.tracks SET status = 'active' WHERE audio_url = $1`, "/storage/v1/object/public/tracks/"+active)

	// The public URL serves nothing, to anyone.
	for _, uid := range []string{"", w.fan, w.artist} {
		if code, body := st.do(http.MethodGet, "/object/public/tracks/"+active, uid, nil, ""); code == http.StatusOK || bytes.Equal(body, audio) {
			t.Errorf("public URL as %q: %d, %d bytes", uid, code, len(body))
		}
	}
	// A signed URL serves the bytes, and a byte range for seeking.
	signed := st.sign(w.fan, active)
	res, err := http.Get(st.url + signed)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, audio) {
		t.Errorf("signed URL: %d, %d bytes", res.StatusCode, len(got))
	}
	req, _ := http.NewRequest(http.MethodGet, st.url+signed, nil)
	req.Header.Set("Range", "bytes=11-21")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusPartialContent || !bytes.Equal(got, audio[11:22]) {
		t.Errorf("signed URL, bytes 11-21: %d %q", res.StatusCode, got)
	}
}

// TestPrivateAudioDown: 0034's down file makes the tracks bucket public again
// and drops the audio index, so `migrate down` leaves the earlier schema.
func TestPrivateAudioDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	down, err := os.ReadFile("0034_private_audio.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	e.exec(string(down))
	if got := scalar[string](e, `SELECT public::text || ' ' || (to_regclass('public.tracks_audio_url_idx') IS NULL)::text FROM storage.buckets WHERE id = 'tracks'`); got != "true true" {
		t.Errorf("after the down file (bucket public, index gone) = %q", got)
	}
}
