// Package rpc calls PostgreSQL functions the way PostgREST's /rpc/{fn} does:
// it reads function signatures from pg_catalog, picks the overload whose
// parameter names match the request's argument keys, binds the arguments
// from a JSON object in SQL (json_to_record, so Postgres does all type
// conversion) and says how the result must be shaped (void, scalar, set,
// composite). The rest package mounts it at /rpc/{fn} and wraps the call in
// its own select/filter/order machinery.
package rpc

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Param is one input parameter.
type Param struct {
	Name       string // empty for unnamed parameters
	Type       string // format_type output, usable in SQL casts
	HasDefault bool
	Variadic   bool
}

// ReturnKind says how a function's result is shaped.
type ReturnKind int

// Result shapes.
const (
	Void ReturnKind = iota
	Scalar
	Composite
)

// Function is one overload as seen in the schema cache.
type Function struct {
	Schema, Name string
	Params       []Param
	Kind         ReturnKind
	SetOf        bool
	// RetSchema/RetTable name the table or view whose row type the function
	// returns, so results can be embedded through its relationships.
	RetSchema, RetTable string
	RetType             string
	Volatile            bool
	Rows                float64
	// OutCols are the columns of a composite result (for OpenAPI and "*").
	OutCols []string
	// MediaType is set when the function returns a domain named after a
	// media type ("text/html", "*/*"): the function is that type's handler
	// and MediaBase is the domain's base type ("text", "bytea"…).
	MediaType, MediaBase string
}

// Query lists the functions of the given schemas that PostgREST can call:
// plain functions (prokind 'f'), no trigger functions, and no function
// with unnamed parameters unless it has a single one that a whole body can
// be (bytea, json, jsonb, text, xml). A parameter left unnamed among named
// ones has the name "" and is called with the key "", as in PostgREST.
const Query = `
SELECT n.nspname, p.proname,
  coalesce(array(SELECT coalesce(nullif(p.proargnames[k.i], ''), '')
     FROM generate_series(1, coalesce(array_length(p.proargtypes::oid[], 1), 0)) AS k(i)
     ORDER BY k.i), '{}') AS in_names,
  coalesce(array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o) ORDER BY o), '{}') AS in_types,
  p.pronargdefaults, p.provariadic <> 0 AS variadic,
  p.prorettype = 'void'::regtype AS is_void, p.proretset,
  format_type(p.prorettype, NULL),
  (rt.typtype = 'c' OR (p.prorettype = 'record'::regtype AND p.proargmodes IS NOT NULL AND
     ('o' = ANY(p.proargmodes) OR 't' = ANY(p.proargmodes)))) AS is_composite,
  coalesce(rn.nspname, ''), coalesce(rc.relname, ''),
  p.provolatile = 'v', p.prorows,
  coalesce(array(SELECT p.proargnames[k.i] FROM generate_series(1, coalesce(array_length(p.proargmodes, 1), 0)) k(i)
     WHERE p.proargmodes[k.i] IN ('o', 't', 'b') ORDER BY k.i), '{}') AS out_names,
  p.proargmodes IS NOT NULL AND array_position(p.proargmodes, 'i'::"char") IS NULL
     AND array_position(p.proargmodes, 'b'::"char") IS NULL AND array_position(p.proargmodes, 'v'::"char") IS NULL
     AND coalesce(array_length(p.proargtypes::oid[], 1), 0) = 0 AS no_in,
  CASE WHEN rt.typtype = 'd' AND rt.typname LIKE '%/%' THEN rt.typname ELSE '' END AS media_type,
  CASE WHEN rt.typtype = 'd' THEN format_type(rt.typbasetype, NULL) ELSE '' END AS media_base
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_type rt ON rt.oid = p.prorettype
LEFT JOIN pg_class rc ON rc.oid = rt.typrelid AND rc.relkind IN ('r','v','m','f','p')
LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
WHERE n.nspname = ANY($1) AND p.prokind = 'f' AND p.prorettype <> 'trigger'::regtype
  -- Callable as PostgREST sees it: parameters without any names can only
  -- be a single one of a type a request body can be.
  AND (p.proargnames IS NOT NULL OR p.pronargs = 0 OR (p.pronargs = 1 AND p.proargtypes[0] IN
       ('bytea'::regtype, 'json'::regtype, 'jsonb'::regtype, 'text'::regtype, 'xml'::regtype)))
ORDER BY n.nspname, p.proname, p.oid`

// Load reads all functions of schemas, keyed by "schema.name".
func Load(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, schemas []string) (map[string][]*Function, error) {
	rows, err := q.Query(ctx, Query, schemas)
	if err != nil {
		return nil, fmt.Errorf("load functions: %w", err)
	}
	defer rows.Close()
	out := map[string][]*Function{}
	for rows.Next() {
		var (
			f                         Function
			names, types, outNames    []string
			ndefaults                 int
			variadic, void, composite bool
			noIn                      bool
		)
		if err := rows.Scan(&f.Schema, &f.Name, &names, &types, &ndefaults, &variadic, &void, &f.SetOf,
			&f.RetType, &composite, &f.RetSchema, &f.RetTable, &f.Volatile, &f.Rows, &outNames, &noIn, &f.MediaType, &f.MediaBase); err != nil {
			return nil, fmt.Errorf("scan function: %w", err)
		}
		for i, t := range types {
			p := Param{Type: t}
			if i < len(names) {
				p.Name = names[i]
			}
			p.HasDefault = i >= len(types)-ndefaults
			p.Variadic = variadic && i == len(types)-1
			f.Params = append(f.Params, p)
		}
		switch {
		case void:
			f.Kind = Void
		case composite:
			f.Kind = Composite
			f.OutCols = outNames
		default:
			f.Kind = Scalar
		}
		out[f.Schema+"."+f.Name] = append(out[f.Schema+"."+f.Name], &f)
	}
	return out, rows.Err()
}

// Signature renders "s.f(a => integer, b => text)" for PGRST203; an
// unnamed parameter shows as " => text".
func (f *Function) Signature() string {
	parts := make([]string, len(f.Params))
	for i, p := range f.Params {
		parts[i] = p.Name + " => " + p.Type
	}
	return f.Schema + "." + f.Name + "(" + strings.Join(parts, ", ") + ")"
}

// TakesBody reports whether f is called with the whole request body as its
// one argument: a function whose single parameter has no name.
func (f *Function) TakesBody() bool {
	return len(f.Params) == 1 && f.Params[0].Name == ""
}

// Resolution failures returned by Resolve.
type (
	// NotFoundError means no overload accepts the argument names.
	NotFoundError struct{ Keys []string }
	// AmbiguousError lists the overloads that all match.
	AmbiguousError struct{ Candidates []*Function }
)

// Error implements error.
func (e *NotFoundError) Error() string { return "function not found" }

// Error implements error.
func (e *AmbiguousError) Error() string { return "ambiguous function call" }

// Resolve picks the overload of candidates matching keys (the distinct
// argument names; an unnamed parameter is named ""). A candidate matches
// when every required parameter is given and every key names a parameter.
// Without a match, a function with a single unnamed parameter of the body's
// type takes the whole body (POST only). More than one candidate, either
// way, is ambiguous: PostgREST prefers no overload over another.
func Resolve(candidates []*Function, keys []string, body Body) (*Function, error) {
	var matches, single []*Function
	for _, f := range candidates {
		switch {
		case matchesKeys(f, keys, body):
			matches = append(matches, f)
		case takesBodyOf(f, body):
			single = append(single, f)
		}
	}
	if len(matches) == 0 {
		matches = single
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		sorted := keys
		if !sort.StringsAreSorted(sorted) {
			sorted = append([]string(nil), keys...)
			sort.Strings(sorted)
		}
		return nil, &NotFoundError{Keys: sorted}
	}
	matches = append([]*Function(nil), matches...)
	sort.SliceStable(matches, func(i, j int) bool { return paramsLess(matches[i].Params, matches[j].Params) })
	return nil, &AmbiguousError{Candidates: matches}
}

// paramsLess orders parameter lists element by element (name, then type),
// a shorter prefix first: the order PostgREST lists ambiguous candidates in.
func paramsLess(a, b []Param) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].Name != b[i].Name {
			return a[i].Name < b[i].Name
		}
		if a[i].Type != b[i].Type {
			return a[i].Type < b[i].Type
		}
	}
	return len(a) < len(b)
}

// takesBodyOf reports whether f can take a POST body of this kind whole.
func takesBodyOf(f *Function, body Body) bool {
	if !f.TakesBody() {
		return false
	}
	switch t := f.Params[0].Type; body {
	case BodyJSON:
		return t == "json" || t == "jsonb"
	case BodyText:
		return t == "text"
	case BodyXML:
		return t == "xml"
	case BodyBinary:
		return t == "bytea"
	}
	return false
}

func matchesKeys(f *Function, keys []string, body Body) bool {
	if len(f.Params) == 0 {
		// A raw body is an argument, so it never calls a function without
		// parameters.
		return len(keys) == 0 && (body == BodyNone || body == BodyJSON)
	}
	// keys are distinct and each must name a parameter.
	if len(keys) > len(f.Params) {
		return false
	}
	given := make(map[string]bool, len(keys))
	for _, k := range keys {
		given[k] = true
	}
	for _, p := range f.Params {
		if !p.HasDefault && !given[p.Name] {
			return false
		}
		delete(given, p.Name)
	}
	return len(given) == 0
}
