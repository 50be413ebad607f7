package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// TestDevSeedsBackline starts `basalt dev` over the repository's own sql/
// folder: the app migrations and the demo seed apply, every seeded track's
// audio and cover are served by storage, and a restart uploads nothing again.
func TestDevSeedsBackline(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sqlDir, err := filepath.Abs(filepath.Join("..", "..", "sql"))
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "bseed")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"BASALT_API_PORT": freePort(t), "BASALT_DB_PORT": freePort(t), "BASALT_APP_PORT": "0",
		"BASALT_SQL_DIR": sqlDir,
	}
	getenv := func(k string) string { return vars[k] }
	dataDir := filepath.Join(tmp, "data")
	api := "http://127.0.0.1:" + vars["BASALT_API_PORT"]

	stop, out := devRun(t, getenv, dataDir)
	if !strings.Contains(out.String(), "admin@backline.test") {
		t.Errorf("banner lacks the demo logins:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "generated demo media") {
		t.Errorf("first start generated no media:\n%s", out.String())
	}
	st, err := readState(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := pg.Connect(ctx, st.DBURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	var audio, cover string
	var seconds, tracks int
	err = db.QueryRow(ctx, `SELECT audio_url, cover_url, duration, (SELECT count(*) FROM public.tracks) FROM public.tracks
		WHERE audio_url LIKE '/storage/v1/object/public/%' ORDER BY title LIMIT 1`).Scan(&audio, &cover, &seconds, &tracks)
	db.Close()
	if err != nil {
		t.Fatalf("seeded track: %v", err)
	}
	if tracks < 4 {
		t.Errorf("seed has %d tracks, want a believable catalogue", tracks)
	}
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		res, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	// Track audio is private: its public path names the object but serves
	// nothing; a visitor plays it through a URL storage signs (the seeded
	// tracks are active, so Backline's policy lets anon sign them).
	if res, _ := get(audio); res.StatusCode == 200 {
		t.Errorf("GET %s = 200: track audio is served without a signed URL", audio)
	}
	name := strings.TrimPrefix(audio, "/storage/v1/object/public/tracks/")
	play := func() (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, api+"/storage/v1/object/sign/tracks/"+name, strings.NewReader(`{"expiresIn":60}`))
		req.Header.Set("apikey", st.AnonKey)
		req.Header.Set("Authorization", "Bearer "+st.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var signed struct {
			SignedURL string `json:"signedURL"`
		}
		err = json.NewDecoder(res.Body).Decode(&signed)
		_ = res.Body.Close()
		if res.StatusCode != 200 || err != nil || signed.SignedURL == "" {
			t.Fatalf("sign %s as anon = %d (%v), want a signed URL", name, res.StatusCode, err)
		}
		return get("/storage/v1" + signed.SignedURL)
	}
	res, wav := play()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "audio/wav" || len(wav) < 44 || string(wav[:4]) != "RIFF" {
		t.Fatalf("GET %s signed = %d %s (%d bytes), want a WAV file", audio, res.StatusCode, res.Header.Get("Content-Type"), len(wav))
	}
	// The audio lasts as long as the track says, so a 30 s stream can be heard.
	rate := binary.LittleEndian.Uint32(wav[24:28])
	if got := int(binary.LittleEndian.Uint32(wav[40:44]) / rate); got != seconds {
		t.Errorf("audio lasts %d s, track says %d s", got, seconds)
	}
	if res, jpg := get(cover); res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" || len(jpg) < 3 || jpg[0] != 0xFF || jpg[1] != 0xD8 {
		t.Errorf("GET %s = %d %s, want a JPEG", cover, res.StatusCode, res.Header.Get("Content-Type"))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// The leftover sweep sees every stored file and deletes none of them:
	// each is referenced by its object row.
	var gc bytes.Buffer
	if err := run(ctx, []string{"storage", "gc", "--data-dir", dataDir}, &gc, &gc, getenv); err != nil {
		t.Fatalf("storage gc: %v\n%s", err, gc.String())
	}
	var scanned, deleted, temp int
	if _, err := fmt.Sscanf(gc.String(), "scanned %d stored keys, deleted %d leftovers and %d temp files", &scanned, &deleted, &temp); err != nil {
		t.Fatalf("storage gc output %q: %v", gc.String(), err)
	}
	if scanned < 2*tracks || deleted != 0 {
		t.Errorf("storage gc scanned %d and deleted %d; want at least %d scanned and none deleted", scanned, deleted, 2*tracks)
	}

	stop, out = devRun(t, getenv, dataDir)
	if strings.Contains(out.String(), "generated demo media") {
		t.Error("a restart generated the media again")
	}
	if res, _ := play(); res.StatusCode != 200 {
		t.Errorf("after restart GET %s signed = %d", audio, res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
