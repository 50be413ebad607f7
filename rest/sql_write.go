package rest

import (
	"strings"
)

// The mutations, in PostgREST's shape: the INSERT, UPDATE or DELETE is the
// pgrst_source CTE of mainSQL, its RETURNING rows are what the select of
// the request reads, and the body is aggregated from them as for a read.
// Each statement renders its own text first, then takes from the builder
// (sql_select.go) what the URL adds, the rows it changes and the select
// over the rows it returns, and is wrapped in the statement's shape last
// (sql.go).

// bodyParam is where a write's statement binds the request body: always
// its first parameter, so the text around it is rendered before the
// builder numbers the values the URL adds.
const bodyParam = "$1"

// insertedFlag and insertedCount tell inserted rows from updated ones in
// an upsert's RETURNING: xmax = 0 only on a freshly inserted row, which is
// how PostgREST finds the status.
const (
	insertedFlag  = ", (xmax = 0) AS pgrst_inserted"
	insertedCount = "(SELECT count(*) FROM pgrst_source WHERE pgrst_source.pgrst_inserted)"
)

// insertStatement renders POST: one INSERT … SELECT from the JSON body, an
// upsert with Prefer: resolution (ON CONFLICT on the plan's conflict
// columns).
func insertStatement(rc *reqCtx, p *writePlan) (*statement, error) {
	source := "INSERT INTO " + p.target
	if len(p.cols) > 0 {
		source += colList(p.cols) + " " + valuesSQL(p, rc.prefs.missing == "default")
	} else {
		// No columns ({} or [{}, …]): one row of defaults per element.
		source += " SELECT FROM json_array_elements(" + bodyParam + "::json)"
	}
	flag, inserted := "", "''"
	if p.upsert {
		source += " ON CONFLICT" + colList(p.conflict)
		if p.merges {
			source += " DO UPDATE SET " + assignments(p.cols, "EXCLUDED")
			flag, inserted = insertedFlag, insertedCount
		} else {
			source += " DO NOTHING"
		}
	}
	source += returningClause(p, flag)
	b := newWriteBuilder(rc, p.payload.json)
	inner, err := b.returnedRowsSQL(p, flag != "")
	if err != nil {
		return nil, err
	}
	return &statement{sql: mainSQL(source, inner, "null", mutationBody(rc, p), inserted), args: b.args,
		verify: chain(singleCheck(p.acc))}, nil
}

// updateStatement renders PATCH: one UPDATE … FROM the body's first
// object, on the rows the filters (and an ordered limit) select.
func updateStatement(rc *reqCtx, p *writePlan) (*statement, error) {
	sets := assignments(p.cols, "pgrst_body")
	ret := returningClause(p, "")
	var body []byte // an empty object binds nothing
	if len(p.cols) > 0 {
		body = p.payload.json
	}
	b := newWriteBuilder(rc, body)
	where, err := b.mutationWhere(p)
	if err != nil {
		return nil, err
	}
	var source string
	if len(p.cols) == 0 {
		// An empty object changes nothing and returns no rows.
		source = "SELECT " + p.target + ".* FROM " + p.target + " WHERE false"
		if len(where) > 0 {
			source += " AND " + strings.Join(where, " AND ")
		}
	} else {
		if len(where) == 0 {
			return nil, safeUpdate("UPDATE")
		}
		// json_populate_recordset casts every value to its column's
		// type in Postgres; LIMIT 1 keeps a bulk body from multiplying
		// the join.
		source = "UPDATE " + p.target + " SET " + sets +
			" FROM (SELECT * FROM json_populate_recordset(NULL::" + p.target + ", " + bodyParam + "::json) LIMIT 1) AS pgrst_body" +
			" WHERE " + strings.Join(where, " AND ") + ret
	}
	inner, err := b.returnedRowsSQL(p, false)
	if err != nil {
		return nil, err
	}
	return &statement{sql: mainSQL(source, inner, "null", mutationBody(rc, p), "''"), args: b.args,
		verify: chain(singleCheck(p.acc), maxAffectedCheck(rc))}, nil
}

// deleteStatement renders DELETE on the rows the filters (and an ordered
// limit) select; an unfiltered DELETE is refused as safeupdate refuses it.
func deleteStatement(rc *reqCtx, p *writePlan) (*statement, error) {
	ret := returningClause(p, "")
	b := newWriteBuilder(rc, nil)
	where, err := b.mutationWhere(p)
	if err != nil {
		return nil, err
	}
	if len(where) == 0 {
		return nil, safeUpdate("DELETE")
	}
	inner, err := b.returnedRowsSQL(p, false)
	if err != nil {
		return nil, err
	}
	source := "DELETE FROM " + p.target + " WHERE " + strings.Join(where, " AND ") + ret
	return &statement{sql: mainSQL(source, inner, "null", mutationBody(rc, p), "''"), args: b.args,
		verify: chain(singleCheck(p.acc), maxAffectedCheck(rc))}, nil
}

// putStatement renders PUT: an upsert of the one row the URL's key names.
func putStatement(rc *reqCtx, p *writePlan) (*statement, error) {
	source := "INSERT INTO " + p.target + colList(p.cols) + " " + valuesSQL(p, false) +
		" ON CONFLICT" + colList(p.t.PK) + " DO UPDATE SET " + assignments(p.cols, "EXCLUDED") +
		returningClause(p, insertedFlag)
	b := newWriteBuilder(rc, p.payload.json)
	inner, err := b.returnedRowsSQL(p, true)
	if err != nil {
		return nil, err
	}
	return &statement{sql: mainSQL(source, inner, "null", mutationBody(rc, p), insertedCount), args: b.args,
		verify: singleCheck(p.acc)}, nil
}

// returningClause renders what the write returns: nothing when no rows are
// needed; without a representation only the row count matters (and the key
// for Location), so RETURNING 1 references no column and needs no SELECT
// privilege or policy, as in PostgREST; else every column.
func returningClause(p *writePlan, flag string) string {
	switch {
	case !p.wantRows && flag == "":
		return ""
	case p.rep:
		return " RETURNING " + p.target + ".*" + flag
	}
	cols := "1"
	if p.headersOnly && len(p.t.PK) > 0 {
		pk := make([]string, len(p.t.PK))
		for i, c := range p.t.PK {
			pk[i] = p.target + "." + quoteIdent(c)
		}
		cols = strings.Join(pk, ", ")
	}
	return " RETURNING " + cols + flag
}

// valuesSQL renders the SELECT feeding INSERT from the JSON array at
// bodyParam. With missing=default, absent keys take the column default. As
// in PostgREST, the defaults of the written columns are evaluated for every
// row, whether the row gives the column or not, so a sequence advances once
// per row and per defaulted column (the ids given out match the reference's).
func valuesSQL(w *writePlan, missingDefault bool) string {
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
		from := " FROM json_array_elements(" + bodyParam + "::json) AS pgrst_elem, "
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
	return "SELECT " + strings.Join(sel, ", ") + " FROM json_populate_recordset(NULL::" + w.target + ", " + bodyParam + "::json) AS pgrst_body"
}

// colList renders a quoted column list "(a, b)".
func colList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// assignments renders "a = from.a, b = from.b" for SET.
func assignments(cols []string, from string) string {
	sets := make([]string, len(cols))
	for i, c := range cols {
		sets[i] = quoteIdent(c) + " = " + from + "." + quoteIdent(c)
	}
	return strings.Join(sets, ", ")
}

// safeUpdate refuses UPDATE/DELETE without a WHERE clause, as the
// safeupdate extension Supabase loads for the authenticator does.
func safeUpdate(verb string) error {
	return &apiError{Status: 400, Code: "21000", Message: verb + " requires a WHERE clause"}
}
