package backline_test

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/functions/backline/sandbox"
)

// toneWAV is a silent 8 kHz mono WAV of the given length.
func toneWAV(seconds int) []byte {
	n := 8000 * seconds
	b := make([]byte, 44+n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], 8000)
	binary.LittleEndian.PutUint32(b[28:], 8000)
	binary.LittleEndian.PutUint16(b[32:], 1)
	binary.LittleEndian.PutUint16(b[34:], 8)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(n))
	return b
}

// TestTrackDuration: the duration is measured from the stored audio, for
// the track's artist only, and recorded only while the audio is the same.
func TestTrackDuration(t *testing.T) {
	t.Parallel()
	// The tracks bucket is private: the audio is read at the authenticated
	// path, as the artist (storage's policy is theirs to apply).
	files := map[string][]byte{}
	var artistTok string
	media := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[strings.Replace(r.URL.Path, "/object/authenticated/", "/object/public/", 1)]
		if !ok || !strings.HasPrefix(r.URL.Path, "/storage/v1/object/authenticated/tracks/") || r.Header.Get("Authorization") != "Bearer "+artistTok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(media.Close)
	b := setup(t, func(_ *testBundle, c *backline.Config, _ *sandbox.Config) { c.APIURL = media.URL })
	artist, artistTok := b.signUp("artist")
	_, otherTok := b.signUp("artist")
	song := "/storage/v1/object/public/tracks/" + artist + "/song.wav"
	fake := "/storage/v1/object/public/tracks/" + artist + "/fake.wav"
	files[song] = toneWAV(61)
	files[fake] = []byte("<html>not audio</html>")
	track := func(audio string) string {
		return scalar[string](b, `INSERT INTO public.tracks (title, artist_id, audio_url) VALUES ('Song', $1, $2) RETURNING id::text`, artist, audio)
	}
	duration := func(id string) string {
		return scalar[string](b, `SELECT coalesce(duration::text, 'null') FROM public.tracks WHERE id = $1`, id)
	}
	good, bad := track(song), track(fake)

	cases := []struct {
		name, token, id string
		status          int
		errMsg          string
	}{
		{"another artist", otherTok, good, 403, "Only the track's artist can do this"},
		{"no user", "", good, 401, ""},
		{"not audio", artistTok, bad, 422, "Could not read the audio's length: upload an MP3, WAV, FLAC, Ogg or M4A file"},
		{"no such track", artistTok, "00000000-0000-4000-8000-000000000009", 404, "Track not found"},
		{"not a UUID", artistTok, "x", 400, "track_id must be a UUID"},
	}
	for _, tc := range cases {
		status, body := b.call("track-duration", tc.token, map[string]any{"track_id": tc.id})
		if status != tc.status || (tc.errMsg != "" && body["error"] != tc.errMsg) {
			t.Errorf("%s: %d %v, want %d %q", tc.name, status, body, tc.status, tc.errMsg)
		}
	}
	if d := duration(good); d != "null" {
		t.Fatalf("refused calls set a duration: %s", d)
	}
	status, body := b.call("track-duration", artistTok, map[string]any{"track_id": good})
	if status != 200 || body["success"] != true || body["duration"] != 61.0 || duration(good) != "61" {
		t.Errorf("artist: %d %v, stored %s", status, body, duration(good))
	}
}
