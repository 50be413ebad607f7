package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// abandonedUpload is how long a resumable upload may stay unfinished.
const abandonedUpload = 24 * time.Hour

// SweepStats reports what a leftover sweep found.
type SweepStats struct {
	Scanned int // backend keys looked at
	Deleted int // unreferenced keys removed
	Temp    int // abandoned temporary files removed (file backend)
}

// tempSweeper is implemented by backends that keep in-progress writes
// around (the file backend's temp files).
type tempSweeper interface {
	SweepTemp(age time.Duration, now time.Time) (int, error)
}

// Sweep deletes backend bytes that no storage.objects row references and
// that are older than age: what a crash between "bytes written" and "row
// committed" (or between "row deleted" and "bytes deleted") leaves behind.
// Younger keys are kept because an upload may be about to commit its row.
// `basalt storage gc` calls it; it is safe to run while serving.
func Sweep(ctx context.Context, admin *pgxpool.Pool, backend Backend, age time.Duration, now time.Time) (SweepStats, error) {
	var st SweepStats
	// Resumable uploads untouched for a day are abandoned; dropping the row
	// turns their parts into leftovers for the walk below.
	if _, err := admin.Exec(ctx, `DELETE FROM storage.tus_uploads WHERE created_at < $1`, now.Add(-abandonedUpload)); err != nil {
		return st, fmt.Errorf("drop abandoned uploads: %w", err)
	}
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		orphans, err := unreferenced(ctx, admin, batch)
		if err != nil {
			return err
		}
		if len(orphans) > 0 {
			if err := backend.Delete(ctx, orphans...); err != nil {
				return fmt.Errorf("delete leftovers: %w", err)
			}
			st.Deleted += len(orphans)
		}
		batch = batch[:0]
		return nil
	}
	err := backend.Walk(ctx, "", func(key string, modified time.Time) error {
		st.Scanned++
		if now.Sub(modified) < age {
			return nil
		}
		batch = append(batch, key)
		if len(batch) >= 500 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return st, fmt.Errorf("sweep storage leftovers: %w", err)
	}
	if ts, ok := backend.(tempSweeper); ok {
		n, err := ts.SweepTemp(age, now)
		st.Temp = n
		if err != nil {
			return st, fmt.Errorf("sweep temp files: %w", err)
		}
	}
	return st, nil
}

// Sweep runs the leftover sweep with the service's pools, backend and
// configured age.
func (s *Service) Sweep(ctx context.Context) (SweepStats, error) {
	return Sweep(ctx, s.admin, s.backend, s.cfg.LeftoverAge, s.now())
}

// unreferenced returns the keys no row points at. A key is
// bucket/name/version, or bucket/name for rows without a version.
func unreferenced(ctx context.Context, admin *pgxpool.Pool, keys []string) ([]string, error) {
	// Keys are grouped by bucket and split back into name and version, so
	// each check is an index lookup on (bucket_id, name).
	byBucket := map[string][]string{}
	for _, k := range keys {
		b, _, _ := strings.Cut(k, "/")
		byBucket[b] = append(byBucket[b], k)
	}
	var out []string
	for b, ks := range byBucket {
		if b+"/" == tusPrefix {
			// Parts of uploads in progress: #tus/<version>/<offset>.
			rows, err := admin.Query(ctx, `SELECT k FROM unnest($1::text[]) AS k
				WHERE NOT EXISTS (SELECT 1 FROM storage.tus_uploads u WHERE u.version = split_part(k, '/', 2))`, ks)
			if err != nil {
				return nil, fmt.Errorf("check upload parts: %w", err)
			}
			found, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return nil, fmt.Errorf("check upload parts: %w", err)
			}
			out = append(out, found...)
			continue
		}
		rows, err := admin.Query(ctx, `SELECT k FROM unnest($2::text[]) AS k
			WHERE NOT EXISTS (
				SELECT 1 FROM storage.objects o
				WHERE o.bucket_id = $1 AND (
					(o.name = regexp_replace(substr(k, length($1) + 2), '/[^/]*$', '')
						AND o.version = regexp_replace(k, '^.*/', ''))
					OR (o.name = substr(k, length($1) + 2) AND o.version IS NULL))
			)`, b, ks)
		if err != nil {
			return nil, fmt.Errorf("check leftovers in %s: %w", b, err)
		}
		found, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("check leftovers in %s: %w", b, err)
		}
		out = append(out, found...)
	}
	return out, nil
}
