package rest

import (
	"strings"
)

// The mutations, in PostgREST's shape: the INSERT, UPDATE or DELETE is the
// pgrst_source CTE of mainSQL, its RETURNING rows are what the select of
// the request reads, and the body is aggregated from them as for a read.

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
	// The filters already chose the rows to change, and every changed row
	// is returned: neither the filters nor max-rows apply again to the
	// select over them.
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

// colList renders a quoted column list "(a, b)".
func colList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return "(" + strings.Join(q, ", ") + ")"
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
	// The WHERE refers to the target table itself, not to the alias the
	// select over RETURNING uses.
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
	// Without a key, a plain table's rows are still addressed by ctid,
	// stable within the statement; a view has no ctid to offer.
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
