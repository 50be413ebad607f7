package rest

import (
	"strconv"
)

// The statement's shape, PostgREST's: every request is one statement
// returning one row (total, page count, body, response GUCs, inserted), so
// the pipeline reads every answer the same way; and the checks a result
// must pass before its transaction commits.

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

// mainSQL wraps a source and the rows to return into PostgREST's
// single-row result: total, page count, body, response GUCs, inserted.
// The page count is count(*): the rows of a FROM item are never NULL, so
// it equals PostgREST's count(_postgrest_t), and it costs PostgreSQL less
// to set up on every request than an aggregate over the whole row.
func mainSQL(source, inner, count, body, inserted string) string {
	return "WITH pgrst_source AS (" + source + ") SELECT " + count + "::bigint AS total_result_set, " +
		"pg_catalog.count(*) AS page_total, " + body + "::text AS body, " +
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

// mutationBody is a write's body aggregate: representation, or PK values
// for return=headers-only (to build Location), or nothing.
func mutationBody(rc *reqCtx, w *writePlan) string {
	// vnd.pgrst.object without a representation still needs the rows
	// (singleCheck counts them) but sends no body.
	switch {
	case w.rep || w.acc.kind == mediaObject:
		if !w.rep {
			return "''"
		}
		return bodySQL(w.acc, false)
	case rc.prefs.ret == "headers-only":
		return "coalesce(json_agg(_postgrest_t), '[]')"
	}
	return "''"
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
