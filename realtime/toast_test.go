package realtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/realtime"
)

// TestPostgresChangesUnchangedToast: an UPDATE that leaves a large
// (out-of-line TOAST) value alone does not carry it in the replication
// stream. With replica identity FULL the record still has it, taken from
// the old row, as the reference's does; with the default identity there is
// no old value to take, and the column stays out of the record.
func TestPostgresChangesUnchangedToast(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: true})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, `
CREATE TABLE public.docs (id bigint PRIMARY KEY, title text, body text);
ALTER TABLE public.docs ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE TABLE public.docs_full (LIKE public.docs INCLUDING ALL);
ALTER TABLE public.docs_full REPLICA IDENTITY FULL;
GRANT SELECT ON public.docs, public.docs_full TO service_role;
ALTER PUBLICATION supabase_realtime ADD TABLE public.docs, public.docs_full;`); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("lyrics ", 1000) // 7 KB, stored out of line
	for _, tc := range []struct {
		table    string
		wantBody bool
	}{{"docs_full", true}, {"docs", false}} {
		c := b.dial(t, "2.0.0")
		subscribe(t, c, "realtime:"+tc.table, b.token(t, "service_role", "", time.Hour),
			map[string]any{"event": "UPDATE", "schema": "public", "table": tc.table})
		if _, err := b.db.Admin.Exec(ctx, `INSERT INTO public.`+tc.table+` VALUES (1, 'draft', $1)`, big); err != nil {
			t.Fatal(err)
		}
		if _, err := b.db.Admin.Exec(ctx, `UPDATE public.`+tc.table+` SET title = 'final' WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
		rec := nextChange(t, c).Data.Record
		if rec["title"] != "final" {
			t.Errorf("%s: record %v, want the new title", tc.table, rec["title"])
		}
		body, has := rec["body"]
		if s, _ := body.(string); tc.wantBody && s != big {
			t.Errorf("%s: record body has %d chars (present %v), want the unchanged value", tc.table, len(s), has)
		}
		if !tc.wantBody && has {
			t.Errorf("%s: record has a body with the default replica identity; the stream has no value for it", tc.table)
		}
	}
}
