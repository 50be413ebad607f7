package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// writePlan collects what every mutation needs.
type writePlan struct {
	t        *Table
	acc      accept
	root     *node // select over the returned rows, root filters included
	target   string
	cols     []string
	payload  *payload
	wantRows bool // RETURNING needed (representation, count, single, max-affected …)
	hasCols  bool // ?columns= chose the written columns
	// headersOnly is Prefer: return=headers-only (Location from the key).
	headersOnly bool
	rep         bool // body = representation
}

func (s *Service) prepareWrite(rc *reqCtx, t *Table, needPayload bool) (*writePlan, error) {
	acc, err := negotiate(rc.cfg, rc.r.Header.Get("Accept"), false)
	if err != nil {
		return nil, err
	}
	w := &writePlan{t: t, acc: acc, target: quoteIdent(t.Schema) + "." + quoteIdent(t.Name)}
	sel, _ := first(rc.params, "select")
	items, err := parseSelect(sel)
	if err != nil {
		return nil, err
	}
	if w.root, err = s.buildTree(rc.cache, t, t.Name, quoteIdent(t.Name), items); err != nil {
		return nil, err
	}
	if err := applyParams(w.root, rc.params, nil); err != nil {
		return nil, err
	}
	w.rep = rc.prefs.ret == "representation"
	w.headersOnly = rc.prefs.ret == "headers-only"
	w.wantRows = w.rep || rc.prefs.count != "" || acc.kind == mediaObject ||
		(rc.prefs.handling == "strict" && rc.prefs.maxAffected != nil) || rc.prefs.ret == "headers-only"
	if !needPayload {
		return w, nil
	}
	colsParam, hasCols := first(rc.params, "columns")
	w.hasCols = hasCols
	if w.payload, err = readPayload(rc, hasCols); err != nil {
		return nil, err
	}
	keys := w.payload.keys
	if hasCols {
		if keys, err = parseColumns("columns parameter", colsParam); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		if t.Column(k) == nil {
			return nil, pgrstErr(400, "PGRST204", "Could not find the '"+k+"' column of '"+t.Name+"' in the schema cache", nil, nil)
		}
	}
	// Column order follows the table, so the same key set always yields
	// the same statement text.
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	for _, c := range t.Columns {
		if set[c.Name] {
			w.cols = append(w.cols, c.Name)
		}
	}
	return w, nil
}

// returning renders the RETURNING clause and the inner select over it.
func (s *Service) returning(w *writePlan, flag string, b *builder) (ret string, inner string, err error) {
	if !w.wantRows && flag == "" {
		return "", "SELECT NULL WHERE false", nil
	}
	if !w.rep {
		// Without a representation only the row count matters (and the
		// key for Location): RETURNING 1 references no column, so no
		// SELECT privilege or policy is needed, as in PostgREST.
		cols := "1"
		if w.headersOnly && len(w.t.PK) > 0 {
			pk := make([]string, len(w.t.PK))
			for i, c := range w.t.PK {
				pk[i] = w.target + "." + quoteIdent(c)
			}
			cols = strings.Join(pk, ", ")
		}
		return " RETURNING " + cols + flag, "SELECT * FROM pgrst_source", nil
	}
	ret = " RETURNING " + w.target + ".*" + flag
	w.root.expandStar = flag != ""
	filters, trees := w.root.filters, w.root.trees
	w.root.filters, w.root.trees = nil, nil
	saved := b.maxRows
	b.maxRows = 0
	inner, _, err = b.readSQL(w.root, "pgrst_source AS "+quoteIdent(w.t.Name), false)
	b.maxRows = saved
	w.root.filters, w.root.trees = filters, trees
	return ret, inner, err
}

// mutationBody is the body aggregate: representation, or PK values for
// return=headers-only (to build Location), or nothing.
func mutationBody(rc *reqCtx, w *writePlan) string {
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

// valuesSQL renders the SELECT feeding INSERT from the JSON array at $ref.
// With missing=default, absent keys take the column default. As in
// PostgREST, the defaults of the written columns are evaluated for every
// row, whether the row gives the column or not, so a sequence advances once
// per row and per defaulted column (the ids given out match the reference's).
func valuesSQL(w *writePlan, ref string, missingDefault bool) string {
	sel := make([]string, len(w.cols))
	if missingDefault {
		var defs []string
		for i, c := range w.cols {
			def := "NULL"
			if col := w.t.Column(c); col != nil && col.Default != "" {
				def = "pgrst_defs." + quoteIdent(c)
				defs = append(defs, col.Default+" AS "+quoteIdent(c))
			}
			sel[i] = "CASE WHEN pgrst_elem.value::jsonb ? " + quoteLit(c) + " THEN pgrst_body." + quoteIdent(c) + " ELSE " + def + " END"
		}
		from := " FROM json_array_elements(" + ref + "::json) AS pgrst_elem, "
		if len(defs) > 0 {
			// Correlated with the row, so volatile defaults run per row.
			from += "LATERAL (SELECT " + strings.Join(defs, ", ") + " WHERE pgrst_elem.value IS NOT NULL) AS pgrst_defs, "
		}
		return "SELECT " + strings.Join(sel, ", ") + from +
			"LATERAL json_populate_record(NULL::" + w.target + ", pgrst_elem.value) AS pgrst_body"
	}
	for i, c := range w.cols {
		sel[i] = "pgrst_body." + quoteIdent(c)
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM json_populate_recordset(NULL::" + w.target + ", " + ref + "::json) AS pgrst_body"
}

func colList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func (s *Service) insert(rc *reqCtx, t *Table) error {
	w, err := s.prepareWrite(rc, t, true)
	if err != nil {
		return err
	}
	b := newBuilder(rc)
	ref := b.arg(w.payload.json)
	var conflict []string
	if oc, ok := first(rc.params, "on_conflict"); ok {
		if conflict, err = parseColumns("on_conflict parameter", oc); err != nil {
			return err
		}
	} else {
		conflict = t.PK
	}
	upsert := rc.prefs.resolution != "" && len(conflict) > 0
	sql := "INSERT INTO " + w.target
	if len(w.cols) > 0 {
		sql += colList(w.cols) + " " + valuesSQL(w, ref, rc.prefs.missing == "default")
	} else {
		sql += " SELECT FROM json_array_elements(" + ref + "::json)"
	}
	flag := ""
	if upsert {
		sql += " ON CONFLICT" + colList(conflict)
		if rc.prefs.resolution == "ignore-duplicates" || len(w.cols) == 0 {
			sql += " DO NOTHING"
		} else {
			sets := make([]string, len(w.cols))
			for i, c := range w.cols {
				sets[i] = quoteIdent(c) + " = EXCLUDED." + quoteIdent(c)
			}
			sql += " DO UPDATE SET " + strings.Join(sets, ", ")
			flag = ", (xmax = 0) AS pgrst_inserted"
		}
	}
	ret, inner, err := s.returning(w, flag, b)
	if err != nil {
		return err
	}
	inserted := "''"
	if flag != "" {
		inserted = "(SELECT count(*) FROM pgrst_source WHERE pgrst_source.pgrst_inserted)"
	}
	st := &statement{
		sql:    mainSQL(sql+ret, inner, "null", mutationBody(rc, w), inserted),
		args:   b.args,
		verify: chain(singleCheck(w.acc)),
	}
	if w.acc.kind == mediaPlan {
		return s.explain(rc, st, w.acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if flag != "" && res.inserted != nil && *res.inserted == 0 && w.payload.objects > 0 {
		status = http.StatusOK
	}
	h := rc.w.Header()
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	h.Set("Content-Range", "*/"+totalString(total))
	if rc.prefs.ret == "headers-only" && res.page == 1 && len(t.PK) > 0 {
		if loc := location(t, res.body); loc != "" {
			h.Set("Location", loc)
		}
	}
	s.preferenceApplied(rc, true, upsert)
	s.profileHeader(rc)
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	return s.finishWrite(rc, w, res, status)
}

func totalString(t *int64) string {
	if t == nil {
		return "*"
	}
	return strconv.FormatInt(*t, 10)
}

// location builds /T?pk=eq.v from the returned primary key values.
func location(t *Table, body []byte) string {
	var rows []map[string]any
	if json.Unmarshal(body, &rows) != nil || len(rows) != 1 {
		return ""
	}
	parts := make([]string, len(t.PK))
	for i, c := range t.PK {
		v := rows[0][c]
		if v == nil {
			parts[i] = url.QueryEscape(c) + "=is.null"
		} else {
			parts[i] = url.QueryEscape(c) + "=eq." + url.QueryEscape(fmt.Sprint(v))
		}
	}
	return "/" + t.Name + "?" + strings.Join(parts, "&")
}

func (s *Service) finishWrite(rc *reqCtx, w *writePlan, res *result, status int) error {
	if !w.rep {
		if status == http.StatusOK && rc.r.Method != http.MethodPost {
			status = http.StatusNoContent
		}
		write(rc, status, "", nil)
		return nil
	}
	write(rc, status, w.acc.contentType(), res.body)
	return nil
}

// safeUpdate refuses UPDATE/DELETE without a WHERE clause, as the
// safeupdate extension Supabase loads for the authenticator does.
func safeUpdate(verb string) error {
	return &apiError{Status: 400, Code: "21000", Message: verb + " requires a WHERE clause"}
}

// mutationWhere renders the WHERE of an UPDATE/DELETE. With limit (and
// offset) the affected rows are picked by a keyed subquery honouring order,
// as PostgREST's limited updates and deletes do.
func (s *Service) mutationWhere(b *builder, w *writePlan) ([]string, error) {
	w.root.qual = w.target
	defer func() { w.root.qual = quoteIdent(w.t.Name) }()
	where, err := b.rootConds(w.root, false)
	if err != nil || (w.root.limit == nil && w.root.offset == nil) {
		return where, err
	}
	var key []string
	switch {
	case len(w.t.PK) > 0:
		for _, c := range w.t.PK {
			key = append(key, w.target+"."+quoteIdent(c))
		}
	case w.t.Kind == 'r':
		key = []string{w.target + ".ctid"}
	default:
		return nil, pgrstErr(400, "PGRST127", "Feature not implemented",
			"limit/offset on a view without a primary key", nil)
	}
	order, err := b.orderSQL(w.root)
	if err != nil {
		return nil, err
	}
	sub := "SELECT " + strings.Join(key, ", ") + " FROM " + w.target
	if len(where) > 0 {
		sub += " WHERE " + strings.Join(where, " AND ")
	}
	sub += order
	if w.root.limit != nil {
		sub += " LIMIT " + b.arg(*w.root.limit)
	}
	if w.root.offset != nil {
		sub += " OFFSET " + b.arg(*w.root.offset)
	}
	return []string{"(" + strings.Join(key, ", ") + ") IN (" + sub + ")"}, nil
}

func (s *Service) update(rc *reqCtx, t *Table) error {
	w, err := s.prepareWrite(rc, t, true)
	if err != nil {
		return err
	}
	b := newBuilder(rc)
	ref := ""
	if len(w.cols) > 0 {
		ref = b.arg(w.payload.json)
	}
	where, err := s.mutationWhere(b, w)
	if err != nil {
		return err
	}
	var sql string
	if len(w.cols) == 0 {
		// An empty object changes nothing and returns no rows.
		sql = "SELECT " + w.target + ".* FROM " + w.target + " WHERE false"
		if len(where) > 0 {
			sql += " AND " + strings.Join(where, " AND ")
		}
	} else {
		if len(where) == 0 {
			return safeUpdate("UPDATE")
		}
		sets := make([]string, len(w.cols))
		for i, c := range w.cols {
			sets[i] = quoteIdent(c) + " = pgrst_body." + quoteIdent(c)
		}
		sql = "UPDATE " + w.target + " SET " + strings.Join(sets, ", ") +
			" FROM (SELECT * FROM json_populate_recordset(NULL::" + w.target + ", " + ref + "::json) LIMIT 1) AS pgrst_body" +
			" WHERE " + strings.Join(where, " AND ")
	}
	w.wantRows = true
	var ret, inner string
	if len(w.cols) == 0 {
		_, inner, err = s.returning(w, "", b)
	} else {
		ret, inner, err = s.returning(w, "", b)
	}
	if err != nil {
		return err
	}
	st := &statement{sql: mainSQL(sql+ret, inner, "null", mutationBody(rc, w), "''"), args: b.args,
		verify: chain(singleCheck(w.acc), maxAffectedCheck(rc))}
	if w.acc.kind == mediaPlan {
		return s.explain(rc, st, w.acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	h := rc.w.Header()
	h.Set("Content-Range", contentRange(0, res.page, total))
	s.preferenceApplied(rc, true, false)
	s.profileHeader(rc)
	status := http.StatusOK
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	return s.finishWrite(rc, w, res, status)
}

func (s *Service) delete(rc *reqCtx, t *Table) error {
	w, err := s.prepareWrite(rc, t, false)
	if err != nil {
		return err
	}
	b := newBuilder(rc)
	where, err := s.mutationWhere(b, w)
	if err != nil {
		return err
	}
	if len(where) == 0 {
		return safeUpdate("DELETE")
	}
	w.wantRows = true
	ret, inner, err := s.returning(w, "", b)
	if err != nil {
		return err
	}
	sql := "DELETE FROM " + w.target + " WHERE " + strings.Join(where, " AND ") + ret
	st := &statement{sql: mainSQL(sql, inner, "null", mutationBody(rc, w), "''"), args: b.args,
		verify: chain(singleCheck(w.acc), maxAffectedCheck(rc))}
	if w.acc.kind == mediaPlan {
		return s.explain(rc, st, w.acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	h := rc.w.Header()
	h.Set("Content-Range", "*/"+totalString(total))
	s.preferenceApplied(rc, true, false)
	s.profileHeader(rc)
	status := http.StatusOK
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	return s.finishWrite(rc, w, res, status)
}

// put is a single-row upsert addressed by the full primary key.
func (s *Service) put(rc *reqCtx, t *Table) error {
	for _, p := range rc.params {
		if p.key == "limit" || p.key == "offset" {
			return pgrstErr(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT", nil, nil)
		}
	}
	w, err := s.prepareWrite(rc, t, true)
	if err != nil {
		return err
	}
	badFilters := pgrstErr(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators", nil, nil)
	urlPK := map[string]string{}
	for _, f := range w.root.filters {
		if f.Op != "eq" || f.Not || f.Quant != "" || len(f.Field.Path) > 0 {
			return badFilters
		}
		urlPK[f.Field.Name] = f.Value
	}
	if len(t.PK) == 0 || len(urlPK) != len(t.PK) || len(w.root.trees) > 0 {
		return badFilters
	}
	for _, c := range t.PK {
		if _, ok := urlPK[c]; !ok {
			return badFilters
		}
	}
	mismatch := pgrstErr(400, "PGRST115", "Payload values do not match URL in primary key column(s)", nil, nil)
	if w.payload.objects != 1 {
		return mismatch
	}
	obj := w.payload.firstObject()
	for _, c := range t.PK {
		raw, ok := obj[c]
		if !ok || jsonScalarString(raw) != urlPK[c] {
			return mismatch
		}
	}
	b := newBuilder(rc)
	ref := b.arg(w.payload.json)
	sets := make([]string, len(w.cols))
	for i, c := range w.cols {
		sets[i] = quoteIdent(c) + " = EXCLUDED." + quoteIdent(c)
	}
	sql := "INSERT INTO " + w.target + colList(w.cols) + " " + valuesSQL(w, ref, false) +
		" ON CONFLICT" + colList(t.PK) + " DO UPDATE SET " + strings.Join(sets, ", ")
	w.wantRows = true
	flag := ", (xmax = 0) AS pgrst_inserted"
	ret, inner, err := s.returning(w, flag, b)
	if err != nil {
		return err
	}
	st := &statement{sql: mainSQL(sql+ret, inner, "null", mutationBody(rc, w),
		"(SELECT count(*) FROM pgrst_source WHERE pgrst_source.pgrst_inserted)"), args: b.args,
		verify: singleCheck(w.acc)}
	if w.acc.kind == mediaPlan {
		return s.explain(rc, st, w.acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.inserted != nil && *res.inserted > 0 {
		status = http.StatusCreated
	}
	if !w.rep {
		status = http.StatusNoContent
	}
	h := rc.w.Header()
	s.preferenceApplied(rc, true, false)
	s.profileHeader(rc)
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	if !w.rep {
		write(rc, status, "", nil)
		return nil
	}
	write(rc, status, w.acc.contentType(), res.body)
	return nil
}

// jsonScalarString renders a JSON scalar as the text a URL would carry.
func jsonScalarString(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	}
	return strings.TrimSpace(string(raw))
}
