package backline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/audiolen"
	"github.com/basaltdev/basalt/internal/httpx"
)

// maxAudioBytes bounds what track-duration downloads: the tracks bucket's
// own limit (50 MB, sql/app/0005_storage.sql) plus headroom.
const maxAudioBytes = 64 << 20

// tracksPrefix is how a track row names its audio (the guard in sql/app
// keeps it in its artist's folder). The tracks bucket is private: the bytes
// are read at audioReadPrefix as the caller, whom storage's policy lets read
// their own uploads.
const (
	tracksPrefix    = "/storage/v1/object/public/tracks/"
	audioReadPrefix = "/storage/v1/object/authenticated/tracks/"
)

// durationFailure is track-duration's {success:false, error} answer.
func durationFailure(status int, msg string, cause error) error {
	return functions.NewError(status, map[string]any{"success": false, "error": msg}, cause)
}

// trackDuration measures a track's audio and records its duration. The
// database never takes a duration from a client (a track's duration is NULL
// until this runs); here the server reads the stored audio itself and
// records what it measured, as service_role through set_track_duration,
// which applies it only while the track still has that audio. Only the
// track's artist may ask.
func (b *Backline) trackDuration(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return durationFailure(http.StatusMethodNotAllowed, "Method not allowed", nil)
	}
	var req struct {
		TrackID string `json:"track_id"`
	}
	if err := httpx.DecodeJSON(r, maxBody, &req); err != nil || !uuidRE.MatchString(req.TrackID) {
		return durationFailure(http.StatusBadRequest, "track_id must be a UUID", err)
	}
	claims := user(r)
	if claims == nil {
		return durationFailure(http.StatusUnauthorized, "Authentication required", nil)
	}
	var artistID, audioURL string
	err := b.asCaller(r, func(tx pgx.Tx) error {
		return tx.QueryRow(r.Context(), `SELECT artist_id::text, coalesce(audio_url, '') FROM public.tracks WHERE id = $1`,
			req.TrackID).Scan(&artistID, &audioURL)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return durationFailure(http.StatusNotFound, "Track not found", nil)
	case err != nil:
		return fmt.Errorf("read track: %w", err)
	case artistID != claims.Subject:
		return durationFailure(http.StatusForbidden, "Only the track's artist can do this", nil)
	case !strings.HasPrefix(audioURL, tracksPrefix+artistID+"/"):
		return durationFailure(http.StatusBadRequest, "The track has no uploaded audio", nil)
	}
	audio, err := b.fetchAudio(r, audioURL)
	if err != nil {
		b.log.Warn("track-duration: fetch audio", "track", req.TrackID, "err", err)
		return durationFailure(http.StatusBadGateway, "Could not read the audio", err)
	}
	secs, err := audiolen.Seconds(audio)
	if err != nil {
		return durationFailure(http.StatusUnprocessableEntity, "Could not read the audio's length: upload an MP3, WAV, FLAC, Ogg or M4A file", err)
	}
	seconds := max(1, int(math.Round(secs)))
	var applied bool
	err = b.asService(r.Context(), r, func(tx pgx.Tx) error {
		return tx.QueryRow(r.Context(), `SELECT public.set_track_duration($1, $2, $3)`, req.TrackID, audioURL, seconds).Scan(&applied)
	})
	if err != nil {
		return fmt.Errorf("set_track_duration: %w", err)
	}
	if !applied {
		return durationFailure(http.StatusConflict, "The track's audio changed; measure it again", nil)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"success": true, "track_id": req.TrackID, "duration": seconds})
	return nil
}

// fetchAudio downloads a track's audio through the API as the caller (their
// token, so storage's policy decides), up to maxAudioBytes.
func (b *Backline) fetchAudio(r *http.Request, audioURL string) ([]byte, error) {
	if b.cfg.APIURL == "" {
		return nil, errors.New("no API URL configured")
	}
	path := audioReadPrefix + strings.TrimPrefix(audioURL, tracksPrefix)
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, strings.TrimRight(b.cfg.APIURL, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Authorization", "apikey"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	res, err := b.media.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAudioBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxAudioBytes {
		return nil, errors.New("audio larger than the tracks bucket allows")
	}
	return body, nil
}
