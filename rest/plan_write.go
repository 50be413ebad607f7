package rest

// The plan of a write: the representation, the tree of the rows to return
// (a select over the written rows, with the URL's filters, which on PATCH
// and DELETE also pick the rows to change), and the body with the columns
// it writes.

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

// prepareWrite plans the URL (media type, select, filters) before it reads
// the body (needPayload is false for DELETE), so a bad URL costs no body.
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
	// Rows come back from the statement only when something needs them:
	// a RETURNING that reads columns needs SELECT rights on them.
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
	return w, nil
}
