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

// Query lists the functions of the given schemas. Only plain functions
// (prokind 'f') are callable, as in PostgREST.
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
WHERE n.nspname = ANY($1) AND p.prokind = 'f'
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

// Signature renders "s.f(a => integer, b => text)" for PGRST203.
func (f *Function) Signature() string {
	parts := make([]string, len(f.Params))
	for i, p := range f.Params {
		if p.Name == "" {
			parts[i] = p.Type
		} else {
			parts[i] = p.Name + " => " + p.Type
		}
	}
	return f.Schema + "." + f.Name + "(" + strings.Join(parts, ", ") + ")"
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
// argument names). A candidate matches when every required parameter is given and
// every key names a parameter. Without a match, a function with a single
// unnamed parameter of the body's type takes the whole body. The returned
// bool reports that fallback.
func Resolve(candidates []*Function, keys []string, body Body) (*Function, bool, error) {
	var matches []*Function
	for _, f := range candidates {
		if matchesKeys(f, keys) {
			matches = append(matches, f)
		}
	}
	if len(matches) == 1 {
		return matches[0], false, nil
	}
	if len(matches) > 1 {
		// A function with exactly the given parameters wins over ones that
		// also have defaulted extras.
		var exact []*Function
		for _, f := range matches {
			if len(f.Params) == len(keys) {
				exact = append(exact, f)
			}
		}
		if len(exact) == 1 {
			return exact[0], false, nil
		}
		return nil, false, &AmbiguousError{Candidates: matches}
	}
	want := map[Body][]string{BodyJSON: {"json", "jsonb"}, BodyText: {"text"}, BodyXML: {"xml"}, BodyBinary: {"bytea"}}[body]
	var single []*Function
	for _, f := range candidates {
		if len(f.Params) == 1 && f.Params[0].Name == "" {
			for _, t := range want {
				if f.Params[0].Type == t {
					single = append(single, f)
				}
			}
		}
	}
	if len(single) == 1 {
		return single[0], true, nil
	}
	if len(single) > 1 {
		return nil, false, &AmbiguousError{Candidates: single}
	}
	sorted := keys
	if !sort.StringsAreSorted(sorted) {
		sorted = append([]string(nil), keys...)
		sort.Strings(sorted)
	}
	return nil, false, &NotFoundError{Keys: sorted}
}

func matchesKeys(f *Function, keys []string) bool {
	// keys are distinct and each must name a parameter.
	if len(keys) > len(f.Params) {
		return false
	}
	given := map[string]bool{}
	for _, k := range keys {
		given[k] = true
	}
	for _, p := range f.Params {
		if p.Name == "" {
			return false
		}
		if !p.HasDefault && !given[p.Name] {
			return false
		}
		delete(given, p.Name)
	}
	return len(given) == 0
}
