package rest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

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

func (s *Service) serveTable(rc *reqCtx) error {
	t := rc.cache.Table(rc.schema, rc.route.table)
	if t == nil {
		var names []string
		for _, c := range rc.cache.Tables {
			if c.Schema == rc.schema {
				names = append(names, c.Name)
			}
		}
		sort.Strings(names)
		var hint any
		if best := fuzzyBest(rc.route.table, names, fuzzyNames); best != "" {
			hint = "Perhaps you meant the table '" + rc.schema + "." + best + "'"
		}
		return pgrstErr(404, "PGRST205", "Could not find the table '"+rc.schema+"."+rc.route.table+"' in the schema cache", nil, hint)
	}
	switch rc.r.Method {
	case http.MethodGet, http.MethodHead:
		return s.read(rc, t)
	case http.MethodPost:
		return s.insert(rc, t)
	case http.MethodPatch:
		return s.update(rc, t)
	case http.MethodPut:
		return s.put(rc, t)
	case http.MethodDelete:
		return s.delete(rc, t)
	case http.MethodOptions:
		allow := []string{"OPTIONS", "GET", "HEAD"}
		if t.Insertable {
			allow = append(allow, "POST")
		}
		if t.Insertable && t.Updatable && len(t.PK) > 0 {
			allow = append(allow, "PUT")
		}
		if t.Updatable {
			allow = append(allow, "PATCH")
		}
		if t.Deletable {
			allow = append(allow, "DELETE")
		}
		rc.w.Header().Set("Allow", strings.Join(allow, ","))
		write(rc, http.StatusOK, "", nil)
		return nil
	}
	return pgrstErr(405, "PGRST117", "Unsupported HTTP method: "+rc.r.Method, nil, nil)
}

// pageBounds folds limit/offset and (on GET) the Range header together.
func pageBounds(rc *reqCtx, root *node) error {
	if hasNegativeLimit(root) {
		return rangeErr("Limit should be greater than or equal to zero.")
	}
	if rc.r.Method != http.MethodGet {
		return nil
	}
	h := rc.r.Header.Get("Range")
	if h == "" {
		return nil
	}
	lo, hi, ok := rangeHeader(h)
	if !ok {
		return nil
	}
	if hi != nil && lo > *hi {
		return rangeErr("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
	}
	// Intersect [offset, offset+limit) with [lo, hi+1). The ends are
	// exclusive and unsigned: two non-negative int64s add without wrapping.
	off := int64(0)
	if root.offset != nil {
		off = *root.offset
	}
	stop, bounded := uint64(0), false
	if root.limit != nil {
		stop, bounded = uint64(off)+uint64(*root.limit), true
	}
	if lo > off {
		off = lo
	}
	if hi != nil && (!bounded || uint64(*hi)+1 < stop) {
		stop, bounded = uint64(*hi)+1, true
	}
	root.offset = &off
	if bounded {
		l := int64(0)
		if stop > uint64(off) {
			l = int64(min(stop-uint64(off), math.MaxInt64))
		}
		root.limit = &l
	}
	return nil
}

func newBuilder(rc *reqCtx) *builder {
	return &builder{maxRows: rc.cfg.MaxRows, aggs: rc.cfg.AggregatesEnabled}
}

func (s *Service) read(rc *reqCtx, t *Table) error {
	acc, err := negotiate(rc.cfg, rc.r.Header.Get("Accept"), false)
	if err != nil {
		return err
	}
	sel, _ := first(rc.params, "select")
	items, err := parseSelect(sel)
	if err != nil {
		return err
	}
	from := quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
	root, err := s.buildTree(rc.cache, t, t.Name, from, items)
	if err != nil {
		return err
	}
	if err := applyParams(root, rc.params, nil); err != nil {
		return err
	}
	if err := pageBounds(rc, root); err != nil {
		return err
	}
	b := newBuilder(rc)
	src, _, err := b.readSQL(root, from, true)
	if err != nil {
		return err
	}
	count, planned, err := countSQL(rc, b, root, from)
	if err != nil {
		return err
	}
	st := &statement{
		sql:      mainSQL(src, "SELECT * FROM pgrst_source", count, bodySQL(acc, rc.r.Method == http.MethodHead), "''"),
		args:     b.args,
		readOnly: true,
		verify:   singleCheck(acc),
	}
	if planned != nil {
		st.extra = append(st.extra, planned.step)
		st.verify = chain(planned.apply(rc), st.verify)
	}
	if acc.kind == mediaPlan {
		return s.explain(rc, st, acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	lower := int64(0)
	if root.offset != nil {
		lower = *root.offset
	}
	status := http.StatusOK
	if res.total != nil {
		if lower > *res.total {
			return rangeErr("An offset of " + strconv.FormatInt(lower, 10) + " was requested, but there are only " +
				strconv.FormatInt(*res.total, 10) + " rows.")
		}
		if res.page < *res.total {
			status = http.StatusPartialContent
		}
	}
	h := rc.w.Header()
	h.Set("Content-Range", contentRange(lower, res.page, res.total))
	if loc := contentLocation(rc); len(loc) <= maxContentLocation {
		h.Set("Content-Location", loc)
	}
	s.preferenceApplied(rc, false, false)
	s.profileHeader(rc)
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	write(rc, status, acc.contentType(), res.body)
	return nil
}

// contentLocation is /T?<params sorted by name>. PostgREST sends it
// whatever its length (its HTTP server refuses request heads over 50 KiB);
// a long one is left out here, see maxContentLocation.
func contentLocation(rc *reqCtx) string {
	ps := append([]param(nil), rc.params...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	var sb strings.Builder
	sb.WriteString("/" + rc.route.table)
	if len(ps) > 0 {
		sb.WriteByte('?')
		for i, p := range ps {
			if i > 0 {
				sb.WriteByte('&')
			}
			sb.WriteString(p.key + "=" + p.value)
		}
	}
	return sb.String()
}

// explain runs EXPLAIN on the main statement (application/vnd.pgrst.plan)
// instead of the statement itself.
func (s *Service) explain(rc *reqCtx, st *statement, acc accept) error {
	opts := []string{"FORMAT TEXT"}
	if acc.planJSON {
		opts[0] = "FORMAT JSON"
	}
	opts = append(opts, acc.planOptions...)
	body, err := s.executeExplain(rc, "EXPLAIN ("+strings.Join(opts, ", ")+") "+st.sql, st)
	if err != nil {
		return err
	}
	write(rc, http.StatusOK, acc.contentType(), body)
	return nil
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
