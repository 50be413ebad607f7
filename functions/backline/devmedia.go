package backline

import (
	"context"
	"fmt"
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
	for _, t := range tracks {
		if path, ok := strings.CutPrefix(t.Audio, publicObjectPrefix); ok {
			seconds := min(max(t.Duration, 30), demomedia.MaxSeconds)
			wav, err := demomedia.WAV(path, seconds)
			if err != nil {
				return err
			}
			if err := dev.Upload(ctx, path, "audio/wav", wav); err != nil {
				return err
			}
		}
		if path, ok := strings.CutPrefix(t.Cover, publicObjectPrefix); ok {
			jpg, err := demomedia.Cover(path, t.Title, 512)
			if err != nil {
				return err
			}
			if err := dev.Upload(ctx, path, "image/jpeg", jpg); err != nil {
				return err
			}
		}
	}
	if len(tracks) > 0 {
		dev.Log.Info("generated demo media", "tracks", len(tracks))
	}
	return nil
}
