package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Stage 3, SQL: the plan becomes one statement with bound values. Its
// text depends only on the plan's shape, never on values, so it is
// prepared once per connection (execute_pipeline.go). sql_select.go and
// sql_filter.go render the SELECT, sql_write.go the mutations.

// readStatement renders a planned read as the one statement PostgREST runs
// for it: the rows (readSQL), the total Prefer: count asks for, and the body
// aggregate of the negotiated media type, all in mainSQL's shape.
func readStatement(rc *reqCtx, p *readPlan) (*statement, error) {
	b := newBuilder(rc)
	src, _, err := b.readSQL(p.root, p.from, true)
	if err != nil {
		return nil, err
	}
	count, planned, err := countSQL(rc, b, p.root, p.from)
	if err != nil {
		return nil, err
	}
	st := &statement{
		sql:      mainSQL(src, "SELECT * FROM pgrst_source", count, bodySQL(p.acc, rc.r.Method == http.MethodHead), "''"),
		args:     b.args,
		readOnly: true,
		verify:   singleCheck(p.acc),
	}
	if planned != nil {
		st.extra = append(st.extra, planned.step)
		st.verify = chain(planned.apply(rc), st.verify)
	}
	return st, nil
}

// statement is the main query of a request plus how to run it.
type statement struct {
	sql      string
	args     []any
	readOnly bool
	// verify inspects the result before commit; an error rolls back.
	verify func(*result) error
	// extra steps run after the main statement in the same transaction
	// (the EXPLAIN behind count=planned/estimated).
	extra []step
}

func newBuilder(rc *reqCtx) *builder {
	return &builder{maxRows: rc.cfg.MaxRows, aggs: rc.cfg.AggregatesEnabled}
}

// mainSQL wraps a source and the rows to return into PostgREST's
// single-row result: total, page count, body, response GUCs, inserted.
func mainSQL(source, inner, count, body, inserted string) string {
	return "WITH pgrst_source AS (" + source + ") SELECT " + count + "::bigint AS total_result_set, " +
		"pg_catalog.count(_postgrest_t) AS page_total, " + body + "::text AS body, " +
		"nullif(current_setting('response.headers', true), '') AS response_headers, " +
		"nullif(current_setting('response.status', true), '') AS response_status, " +
		inserted + "::text AS response_inserted FROM (" + inner + ") _postgrest_t"
}

// bodySQL is the aggregate that renders the rows for the negotiated media
// type, entirely inside Postgres.
func bodySQL(a accept, head bool) string {
	if head {
		return "''"
	}
	switch a.kind {
	case mediaObject:
		if a.stripNulls {
			return "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')"
		}
		return "coalesce(json_agg(_postgrest_t)->0, 'null')"
	case mediaCSV:
		return "(coalesce((SELECT string_agg(pgrst_k, ',') FROM json_object_keys(json_agg(_postgrest_t)->0) AS pgrst_k), '') || chr(10) || " +
			"coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), chr(10)), ''))"
	case mediaGeoJSON:
		return "json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))"
	}
	if a.stripNulls {
		return "coalesce(json_strip_nulls(json_agg(_postgrest_t)), '[]')"
	}
	return "coalesce(json_agg(_postgrest_t), '[]')"
}

// plannedCount collects the planner's row estimate for count=planned and
// count=estimated.
type plannedCount struct {
	step step
	rows *int64
}

// countSQL renders the total-count expression for Prefer: count=…, and for
// planned/estimated counts an EXPLAIN step run after the main statement.
func countSQL(rc *reqCtx, b *builder, root *node, from string) (string, *plannedCount, error) {
	mode := rc.prefs.count
	if mode == "" {
		return "null", nil, nil
	}
	where, err := b.rootConds(root, true)
	if err != nil {
		return "", nil, err
	}
	filtered := from
	if len(where) > 0 {
		filtered += " WHERE " + strings.Join(where, " AND ")
	}
	var p *plannedCount
	if mode != "exact" {
		pb := &builder{aggs: b.aggs}
		pw, err := pb.rootConds(root, true)
		if err != nil {
			return "", nil, err
		}
		q := "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + from
		if len(pw) > 0 {
			q += " WHERE " + strings.Join(pw, " AND ")
		}
		p = &plannedCount{}
		p.step = step{sql: q, args: pb.args, row: func(v [][]byte) error {
			var plan []struct {
				Plan struct {
					Rows float64 `json:"Plan Rows"`
				} `json:"Plan"`
			}
			if err := json.Unmarshal(v[0], &plan); err != nil || len(plan) == 0 {
				return fmt.Errorf("rest: read planned count: %v", err)
			}
			n := int64(plan[0].Plan.Rows)
			p.rows = &n
			return nil
		}}
	}
	switch {
	case mode == "planned":
		return "null", p, nil
	case mode == "estimated" && rc.cfg.MaxRows > 0:
		// Exact up to max-rows (+1 tells "more"), the estimate beyond.
		lim := b.arg(rc.cfg.MaxRows + 1)
		return "(SELECT pg_catalog.count(*) FROM (SELECT 1 FROM " + filtered + " LIMIT " + lim + ") pgrst_estimate)", p, nil
	}
	return "(SELECT pg_catalog.count(*) FROM " + filtered + ")", nil, nil
}

// apply puts the planned figure into the result: as the total for
// planned, and for estimated when the exact count hit max-rows.
func (p *plannedCount) apply(rc *reqCtx) func(*result) error {
	return func(r *result) error {
		if p.rows == nil {
			return nil
		}
		switch {
		case rc.prefs.count == "planned":
			r.total = p.rows
		case r.total != nil && *r.total > rc.cfg.MaxRows && *p.rows > *r.total:
			r.total = p.rows
		}
		return nil
	}
}

// singleCheck enforces vnd.pgrst.object+json: exactly one row.
func singleCheck(a accept) func(*result) error {
	if a.kind != mediaObject && !(a.kind == mediaPlan && a.planFor == mediaObject) {
		return nil
	}
	return func(r *result) error {
		if r.page != 1 {
			return pgrstErr(406, "PGRST116", "Cannot coerce the result to a single JSON object",
				"The result contains "+strconv.FormatInt(r.page, 10)+" rows", nil)
		}
		return nil
	}
}

func maxAffectedCheck(rc *reqCtx) func(*result) error {
	p := rc.prefs
	if p.handling != "strict" || p.maxAffected == nil {
		return nil
	}
	max := *p.maxAffected
	return func(r *result) error {
		if r.page > max {
			return pgrstErr(400, "PGRST124", "Query result exceeds max-affected preference constraint",
				"The query affects "+strconv.FormatInt(r.page, 10)+" rows", nil)
		}
		return nil
	}
}

// chain runs the checks in order; it is nil when there are none, so the
// statement can skip the explicit transaction.
func chain(fs ...func(*result) error) func(*result) error {
	var live []func(*result) error
	for _, f := range fs {
		if f != nil {
			live = append(live, f)
		}
	}
	if len(live) == 0 {
		return nil
	}
	fs = live
	return func(r *result) error {
		for _, f := range fs {
			if f != nil {
				if err := f(r); err != nil {
					return err
				}
			}
		}
		return nil
	}
}
