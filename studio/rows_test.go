package studio

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// pageOf reads a page of rows.
func pageOf(t *testing.T, c *client, path string, want int) map[string]any {
	t.Helper()
	var p map[string]any
	c.json("GET", path, nil, want, &p)
	return p
}

func rowsOf(p map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range p["rows"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func TestBrowseRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(schemaFixture)
	e.exec(`INSERT INTO public.songs (title, artist_id, mood, tags, meta, plays, released)
		SELECT 'song ' || g, 1 + g % 2, CASE WHEN g % 3 = 0 THEN 'loud' ELSE 'calm' END::public.mood,
		  ARRAY['t' || g % 5], jsonb_build_object('n', g), CASE WHEN g % 10 = 0 THEN NULL ELSE g END,
		  '2025-01-01'::timestamptz + g * interval '1 day'
		FROM generate_series(1, 250) g`)
	c := e.signIn(testEmail, testPassword)

	p := pageOf(t, c, "/api/rows/public/songs", 200)
	if rows := rowsOf(p); len(rows) != 100 || p["count"] != float64(250) || p["count_exact"] != true || rows[0]["id"] != float64(1) {
		t.Fatalf("first page: %d rows, count %v %v, first %v", len(rows), p["count"], p["count_exact"], rows[0]["id"])
	}
	cols := fmt.Sprint(p["table"].(map[string]any)["columns"])
	if !strings.Contains(cols, "enums:[calm loud]") || !strings.Contains(cols, "generated:true") || !strings.Contains(cols, "type:timestamp with time zone") {
		t.Errorf("columns: %s", cols)
	}
	p = pageOf(t, c, "/api/rows/public/songs?offset=240&limit=50&order=id.asc", 200)
	if rows := rowsOf(p); len(rows) != 10 || rows[0]["id"] != float64(241) {
		t.Errorf("last page: %d rows from %v", len(rows), rows[0]["id"])
	}
	cases := []struct {
		query string
		count int
		first any
	}{
		{"plays=gte.200&order=plays.desc", 45, float64(249)},
		{"title=ilike." + url.QueryEscape("*SONG 1*") + "&order=id", 111, float64(1)},
		{"mood=eq.loud&plays=lt.10", 3, float64(3)},
		{"id=in.(5,7,\"9\")", 3, float64(5)},
		{"plays=is.null&order=id.desc", 25, float64(250)},
		{"plays=not.is.null", 225, float64(1)},
		{"tags=cs.{t2}&limit=1", 50, float64(2)},
		{"meta=cs." + url.QueryEscape(`{"n":7}`), 1, float64(7)},
		{"released=gt.2025-09-01&order=released.asc", 7, float64(244)},
		{"id=not.in.(1,2,3)&order=id", 247, float64(4)},
		{"order=plays.desc.nullsfirst&limit=1", 250, float64(10)},
	}
	for _, tc := range cases {
		p := pageOf(t, c, "/api/rows/public/songs?"+tc.query, 200)
		rows := rowsOf(p)
		if p["count"] != float64(tc.count) || len(rows) == 0 || rows[0]["id"] != tc.first {
			first := any(nil)
			if len(rows) > 0 {
				first = rows[0]["id"]
			}
			t.Errorf("%s: count %v first %v, want %d and %v", tc.query, p["count"], first, tc.count, tc.first)
		}
	}
	for q, want := range map[string]string{
		"nope=eq.1":        `column \"nope\" does not exist on public.songs`,
		"plays=between.1":  "unknown operator",
		"plays=eq":         "want operator.value",
		"plays=is.maybe":   "is takes null",
		"id=in.1,2":        "in takes a list",
		"order=plays.up":   "is not asc, desc",
		"plays=eq.lots":    "invalid input syntax for type integer",
		"limit=-1":         "limit must be a whole number",
		"select=id,nope":   "does not exist",
		"id=in.(\"1,2)":    "not closed",
		"mood=eq.whisper":  "invalid input value for enum",
		"released=lt.soon": "invalid input syntax for type timestamp",
	} {
		res := c.do("GET", "/api/rows/public/songs?"+q, nil)
		if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 400 with %q", q, res.StatusCode, body, want)
		}
	}
	if res := c.do("GET", "/api/rows/public/nothing", nil); res.StatusCode != 404 {
		t.Errorf("unknown table: %d", res.StatusCode)
	}
	p = pageOf(t, c, "/api/rows/public/songs?limit=5000&select=id,title", 200)
	if p["limit"] != float64(maxPageRows) || len(rowsOf(p)) != 250 || len(rowsOf(p)[0]) != 3 {
		t.Errorf("limit 5000: limit %v, %d rows, row %v", p["limit"], len(rowsOf(p)), rowsOf(p)[0])
	}
}

// TestViewAs: the same page read as anon, as a user and as the operator
// shows what each may see, through the caller primitive REST uses.
func TestViewAs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(`CREATE TABLE public.notes (id int PRIMARY KEY, owner uuid, public boolean NOT NULL DEFAULT false, body text)`)
	e.exec(`ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY`)
	e.exec(`GRANT SELECT ON public.notes TO anon, authenticated`)
	e.exec(`CREATE POLICY everyone_public ON public.notes FOR SELECT USING (public)`)
	e.exec(`CREATE POLICY owners ON public.notes FOR SELECT TO authenticated USING (owner = auth.uid() AND auth.jwt()->>'email' = 'fan@example.com')`)
	fan := "00000000-0000-4000-8000-000000000001"
	e.exec(`INSERT INTO auth.users (id, email, role, aud, raw_app_meta_data, raw_user_meta_data) VALUES ($1, 'fan@example.com', 'authenticated', 'authenticated', '{}', '{}')`, fan)
	e.exec(`INSERT INTO public.notes VALUES (1, NULL, true, 'for all'), (2, $1, false, 'the fan''s'), (3, gen_random_uuid(), false, 'someone else''s')`, fan)
	e.exec(`CREATE SCHEMA private; CREATE TABLE private.secret (id int PRIMARY KEY)`)
	c := e.signIn(testEmail, testPassword)

	ids := func(query string) string {
		p := pageOf(t, c, "/api/rows/public/notes?order=id&"+query, 200)
		var out []string
		for _, r := range rowsOf(p) {
			out = append(out, fmt.Sprint(r["id"]))
		}
		return strings.Join(out, ",") + fmt.Sprintf(" (count %v)", p["count"])
	}
	for q, want := range map[string]string{
		"":                                  "1,2,3 (count 3)",
		"role=anon":                         "1 (count 1)",
		"role=authenticated":                "1 (count 1)",
		"user=" + fan:                       "1,2 (count 2)",
		"user=" + fan + "&body=ilike.*fan*": "2 (count 1)",
	} {
		if got := ids(q); got != want {
			t.Errorf("%q: %s, want %s", q, got, want)
		}
	}
	p := pageOf(t, c, "/api/rows/public/notes?user="+fan, 200)
	if as := p["as"].(map[string]any); as["role"] != "authenticated" || as["email"] != "fan@example.com" {
		t.Errorf("as: %v", as)
	}
	for q, want := range map[string]string{
		"role=postgres": "role must be",
		"user=nobody":   "UUID",
		"user=00000000-0000-4000-8000-000000000009": "no user",
	} {
		res := c.do("GET", "/api/rows/public/notes?"+q, nil)
		if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s", q, res.StatusCode, body)
		}
	}
	res := c.do("GET", "/api/rows/private/secret?role=anon", nil)
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "anon may not read this table") {
		t.Errorf("no grant: %d %s", res.StatusCode, body)
	}
}

// TestWideAndLongRows: 1,000 columns page by 50 rows; long values are cut
// and named, so neither the server nor the page holds megabytes.
func TestWideAndLongRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	var cols []string
	for i := range 1000 {
		cols = append(cols, fmt.Sprintf("c%d int DEFAULT %d", i, i))
	}
	e.exec(`CREATE TABLE public.wide (id int PRIMARY KEY, ` + strings.Join(cols, ", ") + `)`)
	e.exec(`INSERT INTO public.wide (id) SELECT generate_series(1, 120)`)
	e.exec(`CREATE TABLE public.long (id int PRIMARY KEY, body text, doc jsonb, raw bytea)`)
	e.exec(`INSERT INTO public.long VALUES (1, repeat('x', 50000), jsonb_build_object('k', repeat('y', 50000)), decode(repeat('ab', 50000), 'hex')), (2, 'short', '{}', '\x00')`)
	c := e.signIn(testEmail, testPassword)
	p := pageOf(t, c, "/api/rows/public/wide", 200)
	if p["limit"] != float64(49) || len(rowsOf(p)) != 49 || !strings.Contains(fmt.Sprint(p["notice"]), "1001 columns") {
		t.Errorf("wide: limit %v, %d rows, notice %v", p["limit"], len(rowsOf(p)), p["notice"])
	}
	p = pageOf(t, c, "/api/rows/public/long?order=id", 200)
	rows := rowsOf(p)
	if fmt.Sprint(rows[0][truncatedKey]) != "[body doc raw]" || fmt.Sprint(rows[1][truncatedKey]) != "[]" {
		t.Errorf("cut: %v / %v", rows[0][truncatedKey], rows[1][truncatedKey])
	}
	if n := len(rows[0]["body"].(string)); n != maxCellText {
		t.Errorf("body is %d characters", n)
	}
}

// TestCountOfABigTable: a table estimated over 100,000 rows is counted
// from estimates, so a page never reads the whole table.
func TestCountOfABigTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(`CREATE TABLE public.big (id int PRIMARY KEY, g int)`)
	e.exec(`INSERT INTO public.big SELECT i, i % 7 FROM generate_series(1, 150000) i`)
	e.exec(`ANALYZE public.big`)
	c := e.signIn(testEmail, testPassword)
	p := pageOf(t, c, "/api/rows/public/big?limit=10", 200)
	if p["count_exact"] != false || p["count"].(float64) < 140000 || p["count"].(float64) > 160000 {
		t.Errorf("estimate: %v %v", p["count"], p["count_exact"])
	}
	// Filtered, or read as a role its policies bind, a big table's count is
	// the planner's estimate of what is left (6 of 7 rows here).
	p = pageOf(t, c, "/api/rows/public/big?limit=10&g=gte.1", 200)
	if n := p["count"].(float64); p["count_exact"] != false || n < 110000 || n > 150000 {
		t.Errorf("filtered estimate: %v %v", p["count"], p["count_exact"])
	}
	e.exec(`ALTER TABLE public.big ENABLE ROW LEVEL SECURITY`)
	e.exec(`GRANT SELECT ON public.big TO anon`)
	e.exec(`CREATE POLICY a_seventh ON public.big FOR SELECT TO anon USING (g = 3)`)
	p = pageOf(t, c, "/api/rows/public/big?limit=10&role=anon", 200)
	if n := p["count"].(float64); p["count_exact"] != false || n < 10000 || n > 40000 || len(rowsOf(p)) != 10 {
		t.Errorf("anon's estimate: %v %v", p["count"], p["count_exact"])
	}
	// A small table's filtered count is exact.
	e.exec(`CREATE TABLE public.small AS SELECT g AS id FROM generate_series(1, 500) g`)
	e.exec(`ANALYZE public.small`)
	p = pageOf(t, c, "/api/rows/public/small?id=gt.100", 200)
	if p["count_exact"] != true || p["count"] != float64(400) {
		t.Errorf("small filtered count: %v %v", p["count"], p["count_exact"])
	}
}

func TestRowWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.exec(schemaFixture)
	e.exec(`CREATE TABLE public.nokey (a int)`)
	c := e.signIn(testEmail, testPassword)
	var row map[string]any
	c.json("POST", "/api/rows/public/songs", map[string]any{"values": map[string]any{
		"title": `say "hi", {friend}`, "artist_id": "2", "mood": "loud", "tags": []any{"a, b", `q"uote`, nil, "{x}"},
		"meta": map[string]any{"k": []int{1, 2}}, "plays": 7, "released": "2025-03-04T05:06:07Z",
	}}, 201, &row)
	want := `map[artist_id:2 id:1 meta:map[k:[1 2]] mood:loud plays:7 released:2025-03-04T05:06:07+00:00 shout:SAY "HI", {FRIEND} tags:[a, b q"uote <nil> {x}] title:say "hi", {friend}]`
	if got := fmt.Sprint(row); got != want {
		t.Errorf("inserted:\n%s\nwant\n%s", got, want)
	}
	c.json("PATCH", "/api/rows/public/songs", map[string]any{"pk": map[string]any{"id": 1}, "values": map[string]any{"plays": nil, "mood": "calm", "meta": []any{true}}}, 200, &row)
	if row["plays"] != nil || row["mood"] != "calm" || fmt.Sprint(row["meta"]) != "[true]" || row["title"] != `say "hi", {friend}` {
		t.Errorf("updated: %v", row)
	}
	for _, bad := range []struct {
		method string
		body   map[string]any
		status int
		want   string
	}{
		{"POST", map[string]any{"values": map[string]any{"title": "x", "mood": "whisper"}}, 400, "invalid input value for enum"},
		{"POST", map[string]any{"values": map[string]any{"title": "y", "shout": "no"}}, 400, "generated"},
		{"POST", map[string]any{"values": map[string]any{"title": "z", "plays": -1}}, 400, "violates check constraint"},
		{"POST", map[string]any{"values": map[string]any{"title": "w", "artist_id": 99}}, 400, "violates foreign key"},
		{"POST", map[string]any{"values": map[string]any{"title": "v", "plays": map[string]any{}}}, 400, "takes no JSON object"},
		{"POST", map[string]any{"values": map[string]any{"nope": 1}}, 400, "does not exist"},
		{"PATCH", map[string]any{"pk": map[string]any{"id": 99}, "values": map[string]any{"plays": 1}}, 404, "no row"},
		{"PATCH", map[string]any{"pk": map[string]any{}, "values": map[string]any{"plays": 1}}, 400, `needs \"id\"`},
		{"PATCH", map[string]any{"pk": map[string]any{"id": 1}}, 400, "names no column"},
		{"DELETE", map[string]any{"pks": []any{}}, 400, "from 1 to 1000"},
	} {
		res := c.do(bad.method, "/api/rows/public/songs", bad.body)
		if body := readAll(t, res); res.StatusCode != bad.status || !strings.Contains(body, bad.want) {
			t.Errorf("%s %v: %d %s, want %d %q", bad.method, bad.body, res.StatusCode, body, bad.status, bad.want)
		}
	}
	res := c.do("PATCH", "/api/rows/public/nokey", map[string]any{"pk": map[string]any{"a": 1}, "values": map[string]any{"a": 2}})
	if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "no primary key") {
		t.Errorf("no key: %d %s", res.StatusCode, body)
	}
	// A delete of several rows is all or none.
	c.json("POST", "/api/rows/public/songs", map[string]any{"values": map[string]any{"title": "second"}}, 201, &row)
	res = c.do("DELETE", "/api/rows/public/songs", map[string]any{"pks": []any{map[string]any{"id": 1}, map[string]any{"id": "x"}}})
	if readAll(t, res); res.StatusCode != 400 {
		t.Errorf("delete with a bad key: %d", res.StatusCode)
	}
	var del map[string]any
	c.json("DELETE", "/api/rows/public/songs", map[string]any{"pks": []any{map[string]any{"id": 1}, map[string]any{"id": row["id"]}}}, 200, &del)
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM public.songs`).Scan(&n); err != nil || n != 0 || del["deleted"] != float64(2) {
		t.Errorf("after delete: %d rows, %v", n, del)
	}
}
