package rest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The four write handlers. Each passes the stages in order: the payload
// and tree (plan_write.go), the statement (sql_write.go), execute, and the
// answer (respond.go).

// insert answers POST: one INSERT … SELECT from the JSON body, an upsert
// with Prefer: resolution (ON CONFLICT on ?on_conflict= or the primary key).
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
		// No columns ({} or [{}, …]): one row of defaults per element.
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
			// xmax = 0 only on a freshly inserted row: how PostgREST
			// tells inserted from updated rows for the status.
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
	res, err := s.run(rc, st, w.acc)
	if err != nil {
		return err
	}
	if res.plan {
		return respondPlan(rc, w.acc, res)
	}
	// 201, except an upsert that only updated rows: 200.
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
	// Location names the one created row by its key, as PostgREST does
	// for return=headers-only.
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

// update answers PATCH: one UPDATE … FROM the body's first object, on the
// rows the filters (and an ordered limit) select.
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
		// json_populate_recordset casts every value to its column's
		// type in Postgres; LIMIT 1 keeps a bulk body from multiplying
		// the join.
		sets := make([]string, len(w.cols))
		for i, c := range w.cols {
			sets[i] = quoteIdent(c) + " = pgrst_body." + quoteIdent(c)
		}
		sql = "UPDATE " + w.target + " SET " + strings.Join(sets, ", ") +
			" FROM (SELECT * FROM json_populate_recordset(NULL::" + w.target + ", " + ref + "::json) LIMIT 1) AS pgrst_body" +
			" WHERE " + strings.Join(where, " AND ")
	}
	// Rows are always returned: max-affected and the count need them.
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
	res, err := s.run(rc, st, w.acc)
	if err != nil {
		return err
	}
	if res.plan {
		return respondPlan(rc, w.acc, res)
	}
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	// PATCH reports the range of rows it touched (0-2/*), unlike POST
	// and DELETE, whose Content-Range has no range part.
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

// delete answers DELETE on the rows the filters (and an ordered limit)
// select; an unfiltered DELETE is refused as safeupdate refuses it.
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
	res, err := s.run(rc, st, w.acc)
	if err != nil {
		return err
	}
	if res.plan {
		return respondPlan(rc, w.acc, res)
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

// put is a single-row upsert addressed by the full primary key. PostgREST
// checks, before any SQL, that the URL names exactly the key with eq
// filters (405 PGRST105 otherwise) and that the body is one object with
// the same key values (400 PGRST115).
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
	res, err := s.run(rc, st, w.acc)
	if err != nil {
		return err
	}
	if res.plan {
		return respondPlan(rc, w.acc, res)
	}
	status := http.StatusOK
	if res.inserted != nil && *res.inserted > 0 {
		status = http.StatusCreated
	}
	// Without return=representation PUT answers 204 whether it inserted
	// or updated.
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

// jsonScalarString renders a JSON scalar as the text a URL would carry, so
// that {"id": 5} matches id=eq.5 and {"id": "a"} matches id=eq.a.
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
