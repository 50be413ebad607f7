package changes

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// localTable has a column of every type the engine evaluates itself, and
// some it leaves to PostgreSQL.
const localTable = `
CREATE TYPE public.mood AS ENUM ('happy', 'so "sad"', 'x');
CREATE TABLE public.vals (
  id bigint PRIMARY KEY, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, num numeric,
  t text, vc varchar, vc5 varchar(5), tc text COLLATE "C", u uuid, b bool, j jsonb, js json,
  ts timestamp, tstz timestamptz, d date, e public.mood, arr text[]);`

// localRows are the values, one column a line, cycled over the rows.
var localRows = map[string][]string{
	"i2":   {"0", "-1", "32767", "NULL"},
	"i4":   {"3", "-2147483648", "0", "42"},
	"i8":   {"-9223372036854775808", "9223372036854775807", "7", "NULL"},
	"f4":   {"1.5", "-0", "1e30", "NaN", "0.1", "Infinity"},
	"f8":   {"1.5", "-0", "1e100", "1.5e-7", "NaN", "0.1", "-Infinity", "100"},
	"num":  {"1.50", "NaN", "-0.0001", "12345678901234567890.123", "0", "-0.0"},
	"t":    {"", "plain", `quote " back \ slash`, "tab\tnl\ncr\rbs\bff\f", "ctl\x01\x1f\x7f", "unicode é 日本 😀", "<html>&amp;", "line sep \u2028 \u2029"},
	"vc":   {"plain", "NULL", "x\ny"},
	"vc5":  {"abc", "abcde"},
	"tc":   {"plain", "Ab"},
	"u":    {"4e0f2b39-8a4b-4a3c-9d1e-0123456789ab", "NULL", "00000000-0000-0000-0000-000000000000"},
	"b":    {"true", "false", "NULL"},
	"j":    {`{"b": [1, 2, {"c": "x\"y"}], "a": null}`, `"s"`, `1.0`, `[]`, `{"k":"\u0001 é"}`, "NULL"},
	"js":   {`{"a":1,  "a":2}`, `[1, 2]`},
	"ts":   {"2024-02-29 13:14:15.123456", "2024-01-01 00:00:00", "infinity", "0099-01-01 00:00:00", "10000-01-01 00:00:00", "2000-01-01 00:00:00 BC", "2024-05-05 05:05:05.5"},
	"tstz": {"2024-02-29 13:14:15.123456+00", "2024-07-01 00:00:00+02", "-infinity", "1890-01-01 00:00:00+00", "2024-01-01 23:59:59.999999-03:30"},
	"d":    {"2024-01-01", "infinity", "0001-01-01 BC", "1999-12-31"},
	"e":    {"happy", `so "sad"`, "NULL"},
	"arr":  {`{a,"b c"}`, "NULL"},
}

// localPool is a pool on db whose sessions use timezone tz: the engine's
// own pool and the slot's session share the server's zone, and every
// offset must render as to_jsonb renders it.
func localPool(t *testing.T, db *pgtest.DB, tz string) *pgxpool.Pool {
	t.Helper()
	cfg := db.Admin.Config().Copy()
	cfg.ConnConfig.RuntimeParams["timezone"] = tz
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// textRows reads every row's values as their types' text output (what
// pgoutput sends), in column order.
func textRows(t *testing.T, pool *pgxpool.Pool) [][]*string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "SELECT * FROM public.vals ORDER BY id", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		var vals []*string
		for _, raw := range rows.RawValues() {
			if raw == nil {
				vals = append(vals, nil)
				continue
			}
			s := string(raw)
			vals = append(vals, &s)
		}
		out = append(out, vals)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	return out
}

// TestLocalRecordsMatchPostgres renders every value both ways, in three
// time zones: what the engine renders itself must be what to_jsonb gives,
// byte for byte, and it must render itself every type it claims.
func TestLocalRecordsMatchPostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, localTable); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, vs := range localRows {
		n = max(n, len(vs))
	}
	for i := range n {
		cols, args := "id", []any{i}
		ph := "$1"
		for col, vs := range localRows {
			v := vs[i%len(vs)]
			cols += ", " + col
			if v == "NULL" {
				ph += ", NULL"
				continue
			}
			args = append(args, v)
			ph += fmt.Sprintf(", $%d", len(args))
		}
		if _, err := db.Admin.Exec(ctx, "INSERT INTO public.vals ("+cols+") VALUES ("+ph+")", args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, tz := range []string{"UTC", "Asia/Kolkata", "America/St_Johns"} {
		pool := localPool(t, db, tz)
		e := &Engine{admin: pool, rels: newRelCache(pool)}
		var oid uint32
		if err := pool.QueryRow(ctx, "SELECT 'public.vals'::regclass::oid").Scan(&oid); err != nil {
			t.Fatal(err)
		}
		rel, err := e.rels.get(ctx, oid, -1)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]int{}
		for _, vals := range textRows(t, pool) {
			ch := &Change{Type: "INSERT", New: vals}
			ev, err := e.evaluateSQL(ctx, rel, ch, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, col := range rel.Cols {
				got, ok := jsonValue(col.kind, vals[i])
				if !ok {
					continue
				}
				if vals[i] != nil {
					local[col.Name]++
				}
				if want := ev.record[col.Name]; !bytes.Equal(got, want) {
					t.Errorf("%s: %s %q renders %s here, %s in PostgreSQL", tz, col.Name, deref(vals[i]), got, want)
				}
			}
			if rec, ok := localRecord(rel, vals, nil); ok && len(rec) != len(ev.record) {
				t.Errorf("%s: %d columns here, %d in PostgreSQL", tz, len(rec), len(ev.record))
			}
		}
		for _, col := range rel.Cols {
			switch {
			case col.kind == kindSQL && local[col.Name] > 0:
				t.Errorf("%s: a column left to PostgreSQL was rendered here", col.Name)
			case col.kind != kindSQL && local[col.Name] == 0:
				t.Errorf("%s (%s): never rendered here", col.Name, col.TypName)
			}
		}
		if rel.column("js").kind != kindSQL || rel.column("arr").kind != kindSQL {
			t.Errorf("json and arrays must be left to PostgreSQL")
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// TestLocalFiltersMatchPostgres runs every filter both ways on every row:
// where the engine decides itself, it decides as PostgreSQL does; the
// common filters (equality on integers, text, uuid, bool and enums, in on
// integers, is null) are decided here.
func TestLocalFiltersMatchPostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	_, err := db.Admin.Exec(ctx, localTable+`
		INSERT INTO public.vals (id, i4, i8, t, vc5, tc, u, b, e) VALUES
		  (1, 3, 7, 'plain', 'abcde', 'Ab', '4e0f2b39-8a4b-4a3c-9d1e-0123456789ab', true, 'happy'),
		  (2, -5, NULL, '', 'ab', 'ab', NULL, false, 'so "sad"'),
		  (3, NULL, 0, NULL, NULL, NULL, '00000000-0000-0000-0000-000000000000', NULL, NULL);`)
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{admin: db.Admin, rels: newRelCache(db.Admin)}
	var oid uint32
	if err := db.Admin.QueryRow(ctx, "SELECT 'public.vals'::regclass::oid").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	rel, err := e.rels.get(ctx, oid, -1)
	if err != nil {
		t.Fatal(err)
	}
	type fcase struct {
		f     filter
		local bool // must be decided here
	}
	var cases []fcase
	for _, op := range []string{"eq", "neq", "lt", "lte", "gt", "gte"} {
		for _, v := range []string{"3", "-5", "0", "+3", "03", " 3"} {
			cases = append(cases, fcase{filter{Column: "i4", Op: op, Value: v}, v != " 3"})
		}
		cases = append(cases, fcase{filter{Column: "i8", Op: op, Value: "7"}, true})
		cases = append(cases, fcase{filter{Column: "t", Op: op, Value: "plain"}, op == "eq" || op == "neq"})
	}
	for _, neg := range []bool{false, true} {
		add := func(col, op, v string, local bool) {
			cases = append(cases, fcase{filter{Column: col, Op: op, Value: v, Negate: neg}, local})
		}
		add("t", "eq", "", true)
		add("t", "eq", "plain", true)
		add("vc5", "eq", "abcdefg", false) // the cast cuts it to abcde
		add("vc5", "eq", "abcde", false)
		add("tc", "eq", "ab", true)
		add("u", "eq", "4E0F2B39-8A4B-4A3C-9D1E-0123456789AB", true)
		add("u", "eq", "4e0f2b398a4b4a3c9d1e0123456789ab", false)
		add("u", "neq", "00000000-0000-0000-0000-000000000000", true)
		add("b", "eq", "true", true)
		add("b", "eq", "f", true)
		add("b", "eq", "yes", false)
		add("e", "eq", "happy", true)
		add("e", "eq", `so "sad"`, true)
		add("i4", "in", "{3,4}", true)
		add("i4", "in", "{-5}", true)
		add("i4", "in", `{"3"}`, false)
		add("t", "in", "{plain,other}", true)
		add("t", "in", `{"plain","x y"}`, false)
		add("u", "in", "{4e0f2b39-8a4b-4a3c-9d1e-0123456789ab}", true)
		add("i4", "is", "null", true)
		add("t", "is", "NULL", true)
		add("b", "is", "true", true)
		add("b", "is", "false", true)
		add("b", "is", "unknown", false)
		add("t", "like", "pl%", false)
		add("t", "ilike", "PL%", false)
		add("i4", "isdistinct", "3", false)
		add("missing", "eq", "1", true)
	}
	var fs []filter
	for _, c := range cases {
		fs = append(fs, c.f)
	}
	for _, vals := range textRows(t, db.Admin) {
		ev, err := e.evaluateSQL(ctx, rel, &Change{Type: "INSERT", New: vals}, fs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			got, ok := localFilter(rel, c.f, vals)
			if c.local && !ok {
				t.Errorf("%+v: left to PostgreSQL", c.f)
			}
			if ok && got != ev.filters[c.f] {
				t.Errorf("%+v on row %s: %v here, %v in PostgreSQL", c.f, deref(vals[0]), got, ev.filters[c.f])
			}
		}
	}
}
