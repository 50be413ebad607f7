package rpc

import "strings"

// Call builds the SQL that calls f with the named arguments taken from the
// JSON object bound at placeholder argRef (e.g. "$1"). It returns the FROM
// item(s) that bind the arguments and the call expression. keys are the
// arguments present; absent ones are left out so their defaults apply. A
// function whose single parameter has no name gets the request body as it
// was sent (the JSON object for named arguments), as PostgREST calls it.
// uses reports whether the statement reads argRef at all: Postgres refuses
// parameters a statement does not use.
func Call(f *Function, keys []string, argRef string) (from, call string, uses bool) {
	q := quoteIdent
	fn := q(f.Schema) + "." + q(f.Name)
	if f.TakesBody() {
		return "", fn + "(" + argRef + "::" + f.Params[0].Type + ")", true
	}
	present := map[string]bool{}
	for _, k := range keys {
		present[k] = true
	}
	var defs, args []string
	for _, p := range f.Params {
		if !present[p.Name] {
			continue
		}
		defs = append(defs, q(p.Name)+" "+p.Type)
		a := q(p.Name) + " := pgrst_args." + q(p.Name)
		if p.Variadic {
			a = "VARIADIC " + a
		}
		args = append(args, a)
	}
	if len(defs) == 0 {
		return "", fn + "()", false
	}
	return "json_to_record(" + argRef + "::json) AS pgrst_args(" + strings.Join(defs, ", ") + ")",
		fn + "(" + strings.Join(args, ", ") + ")", true
}

// Shape is how a function's result becomes the response.
type Shape int

// Result shapes.
const (
	ShapeVoid      Shape = iota // no body (204)
	ShapeScalar                 // one value
	ShapeScalarSet              // an array of values
	ShapeRows                   // rows, read with select, filters and embeds like a table
)

// Shape says how f's result is rendered.
func (f *Function) Shape() Shape {
	switch {
	case f.Kind == Void:
		return ShapeVoid
	case f.Kind == Scalar && f.SetOf:
		return ShapeScalarSet
	case f.Kind == Scalar:
		return ShapeScalar
	}
	return ShapeRows
}

// Handler is the media type f is the handler of, or "": a function that
// returns one value of a domain named after a media type answers that type.
func (f *Function) Handler() string {
	if f.Shape() == ShapeScalar {
		return f.MediaType
	}
	return ""
}

// Source renders the statement whose rows are the call's result (the
// caller names it pgrst_source): scalar results in column pgrst_scalar,
// rows with their own columns. from binds the arguments ("" when none).
func Source(f *Function, from, call string) string {
	switch f.Shape() {
	case ShapeVoid:
		return "SELECT " + call + fromClause(from)
	case ShapeScalar:
		return "SELECT " + call + " AS pgrst_scalar" + fromClause(from)
	case ShapeScalarSet:
		return "SELECT pgrst_scalar" + lateral(from) + call + " AS pgrst_scalar"
	}
	return "SELECT pgrst_call.*" + lateral(from) + call + " AS pgrst_call"
}

func fromClause(from string) string {
	if from == "" {
		return ""
	}
	return " FROM " + from
}

// lateral puts the call after the argument binding, which it reads.
func lateral(from string) string {
	if from == "" {
		return " FROM LATERAL "
	}
	return " FROM " + from + ", LATERAL "
}

// ScalarBody renders the response body of a scalar or set-of-scalars result
// from the rows of _postgrest_t. raw renders a media handler's one value as
// it is: text as text, bytes as hex (for the caller to decode, whatever
// bytea_output says).
func ScalarBody(f *Function, raw bool) string {
	if f.Shape() == ShapeScalarSet {
		return "coalesce(json_agg(_postgrest_t.pgrst_scalar), '[]')"
	}
	if !raw {
		return "coalesce(json_agg(_postgrest_t.pgrst_scalar)->0, 'null')"
	}
	v := "(array_agg(_postgrest_t.pgrst_scalar))[1]"
	if f.MediaBase == "bytea" {
		v = "pg_catalog.encode(" + v + ", 'hex')"
	}
	return "coalesce(" + v + "::text, '')"
}

// RowBody renders a function that returns one row: an object, or null.
func RowBody(stripNulls bool) string {
	if stripNulls {
		return "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')"
	}
	return "coalesce(json_agg(_postgrest_t)->0, 'null')"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
