package rest

// The plan of a write: the representation, the tree of the rows to return
// (a select over the written rows, with the URL's filters, which on PATCH
// and DELETE also pick the rows to change), and the body with the columns
// it writes. The URL is planned before the body is read, so a bad URL
// costs no body; the column lists (?columns=, ?on_conflict=) are parsed
// with the URL but their errors come after the body's, the order the tests
// pin.

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
	// upsert is a POST with Prefer: resolution and conflict columns
	// (?on_conflict=, else the primary key).
	upsert   bool
	conflict []string
	// merges: the upsert updates rows that exist (merge-duplicates with
	// columns to set), so the answer tells inserted rows from updated ones.
	merges bool
}

// writeKind says what a write reads beyond the URL.
type writeKind int

const (
	writeDelete writeKind = iota // no body
	writeUpdate                  // a body; every changed row comes back
	writeInsert                  // a body and, for an upsert, conflict columns
)

// planWrite plans the URL (media type, select, filters) before it reads
// the body (none for DELETE), then checks the body's keys against the
// table.
func (s *Service) planWrite(rc *reqCtx, t *Table, kind writeKind) (*writePlan, error) {
	acc, err := negotiate(rc.cfg, rc.r.Header.Get("Accept"), false)
	if err != nil {
		return nil, err
	}
	w := &writePlan{t: t, acc: acc, target: quoteIdent(t.Schema) + "." + quoteIdent(t.Name)}
	sel, _ := first(rc.params, "select")
	colsParam, hasCols := first(rc.params, "columns")
	conflictParam, hasConflict := first(rc.params, "on_conflict")
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
	var keys, conflict []string
	var colsErr, conflictErr error
	if hasCols && kind != writeDelete {
		keys, colsErr = parseColumns("columns parameter", colsParam)
	}
	if hasConflict && kind == writeInsert {
		conflict, conflictErr = parseColumns("on_conflict parameter", conflictParam)
	}
	// Rows come back from the statement only when something needs them:
	// a RETURNING that reads columns needs SELECT rights on them. PATCH
	// and DELETE always want them: max-affected and the count need them.
	w.rep = rc.prefs.ret == "representation"
	w.headersOnly = rc.prefs.ret == "headers-only"
	w.wantRows = kind != writeInsert || w.rep || rc.prefs.count != "" || acc.kind == mediaObject ||
		(rc.prefs.handling == "strict" && rc.prefs.maxAffected != nil) || w.headersOnly
	if kind == writeDelete {
		return w, nil
	}
	w.hasCols = hasCols
	if w.payload, err = readPayload(rc, hasCols); err != nil {
		return nil, err
	}
	if colsErr != nil {
		return nil, colsErr
	}
	if !hasCols {
		keys = w.payload.keys
	}
	// An unknown key is PGRST204 before any SQL, as PostgREST reports it
	// from the schema cache instead of letting Postgres fail.
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
	if kind == writeInsert {
		if conflictErr != nil {
			return nil, conflictErr
		}
		if !hasConflict {
			conflict = t.PK
		}
		w.conflict = conflict
		w.upsert = rc.prefs.resolution != "" && len(conflict) > 0
		w.merges = w.upsert && rc.prefs.resolution != "ignore-duplicates" && len(w.cols) > 0
	}
	return w, nil
}

// planPut plans a PUT, a single-row upsert addressed by the full primary
// key. PostgREST checks, before any SQL, that the URL names exactly the key
// with eq filters (405 PGRST105 otherwise) and that the body is one object
// with the same key values (400 PGRST115).
func (s *Service) planPut(rc *reqCtx, t *Table) (*writePlan, error) {
	for _, p := range rc.params {
		if p.key == "limit" || p.key == "offset" {
			return nil, pgrstErr(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT", nil, nil)
		}
	}
	w, err := s.planWrite(rc, t, writeUpdate)
	if err != nil {
		return nil, err
	}
	badFilters := pgrstErr(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators", nil, nil)
	urlPK := map[string]string{}
	for _, f := range w.root.filters {
		if f.Op != "eq" || f.Not || f.Quant != "" || len(f.Field.Path) > 0 {
			return nil, badFilters
		}
		urlPK[f.Field.Name] = f.Value
	}
	if len(t.PK) == 0 || len(urlPK) != len(t.PK) || len(w.root.trees) > 0 {
		return nil, badFilters
	}
	for _, c := range t.PK {
		if _, ok := urlPK[c]; !ok {
			return nil, badFilters
		}
	}
	mismatch := pgrstErr(400, "PGRST115", "Payload values do not match URL in primary key column(s)", nil, nil)
	if w.payload.objects != 1 {
		return nil, mismatch
	}
	body := w.payload.firstScalars()
	for _, c := range t.PK {
		if v, ok := body[c]; !ok || v != urlPK[c] {
			return nil, mismatch
		}
	}
	return w, nil
}
