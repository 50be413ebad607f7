package backline

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/appkit"
	"github.com/basaltdev/basalt/functions/backline/demomedia"
)

// publicObjectPrefix is how seeded rows point at storage objects.
const publicObjectPrefix = "/storage/v1/object/public/"

// seedDemoMedia gives every seeded track whose audio or cover lives in
// public storage but has no object yet a generated file, uploaded through the
// real storage API in process (so bytes and metadata go the one way every
// upload goes). It does nothing when the schema has no tracks table yet.
func seedDemoMedia(ctx context.Context, dev appkit.Dev) error {
	db := dev.Admin
	var hasTracks, hasStorage bool
	err := db.QueryRow(ctx, `SELECT to_regclass('public.tracks') IS NOT NULL, to_regclass('storage.objects') IS NOT NULL`).Scan(&hasTracks, &hasStorage)
	if err != nil || !hasTracks || !hasStorage {
		return err
	}
	type track struct {
		Slug, Title, Audio, Cover string
		Duration                  int
	}
	// Only rows whose objects are missing: a second start uploads nothing.
	rows, err := db.Query(ctx, `
		SELECT coalesce(t.title, ''), coalesce(t.audio_url, ''), coalesce(t.cover_url, ''), coalesce(t.duration, 0)::int
		FROM public.tracks t
		WHERE (t.audio_url LIKE '/storage/v1/object/public/%' AND NOT EXISTS (
		         SELECT 1 FROM storage.objects o
		         WHERE o.bucket_id || '/' || o.name = substr(t.audio_url, length('/storage/v1/object/public/') + 1)))
		   OR (t.cover_url LIKE '/storage/v1/object/public/%' AND NOT EXISTS (
		         SELECT 1 FROM storage.objects o
		         WHERE o.bucket_id || '/' || o.name = substr(t.cover_url, length('/storage/v1/object/public/') + 1)))`)
	if err != nil {
		return fmt.Errorf("find tracks without media: %w", err)
	}
	var tracks []track
	var tr track
	if _, err := pgx.ForEachRow(rows, []any{&tr.Title, &tr.Audio, &tr.Cover, &tr.Duration}, func() error {
		tracks = append(tracks, tr)
		return nil
	}); err != nil {
		return fmt.Errorf("read tracks: %w", err)
	}
	// The files are made on every core while the ones before them upload
	// (the audio is most of a fresh dev start's CPU); at most one per core
	// is made and not yet uploaded, so memory stays bounded.
	made := make([]chan trackMedia, len(tracks))
	for i := range made {
		made[i] = make(chan trackMedia, 1)
	}
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	done := make(chan struct{})
	defer close(done)
	go func() {
		for i, t := range tracks {
			select {
			case slots <- struct{}{}:
			case <-done:
				return
			}
			go func() { made[i] <- makeMedia(t.Title, t.Audio, t.Cover, t.Duration) }()
		}
	}()
	for i := range tracks {
		m := <-made[i]
		if m.err != nil {
			return m.err
		}
		for _, f := range m.files {
			if err := dev.Upload(ctx, f.path, f.contentType, f.body); err != nil {
				return err
			}
		}
		<-slots
	}
	if len(tracks) > 0 {
		dev.Log.Info("generated demo media", "tracks", len(tracks))
	}
	return nil
}

// trackMedia is one track's generated files.
type trackMedia struct {
	files []mediaFile
	err   error
}

type mediaFile struct {
	path, contentType string
	body              []byte
}

// makeMedia generates the audio and the cover of a track whose URLs point
// into public storage.
func makeMedia(title, audio, cover string, duration int) trackMedia {
	var m trackMedia
	if path, ok := strings.CutPrefix(audio, publicObjectPrefix); ok {
		seconds := min(max(duration, 30), demomedia.MaxSeconds)
		wav, err := demomedia.WAV(path, seconds)
		if err != nil {
			return trackMedia{err: err}
		}
		m.files = append(m.files, mediaFile{path, "audio/wav", wav})
	}
	if path, ok := strings.CutPrefix(cover, publicObjectPrefix); ok {
		jpg, err := demomedia.Cover(path, title, 512)
		if err != nil {
			return trackMedia{err: err}
		}
		m.files = append(m.files, mediaFile{path, "image/jpeg", jpg})
	}
	return m
}
