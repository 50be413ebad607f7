package gentypes

import (
	"fmt"
	"sort"
	"strings"
)

// functions is one member per function name: its signature, or a union of
// the overloads' signatures.
func (g *gen) functions(schema string) []member {
	var out []member
	fns := g.schemas[schema].functions
	for i := 0; i < len(fns); {
		j := i
		for j < len(fns) && fns[j].fn.name == fns[i].fn.name {
			j++
		}
		group := append([]fnEntry(nil), fns[i:j]...)
		sort.SliceStable(group, func(a, b int) bool {
			fa, fb := group[a].fn, group[b].fn
			if c := g.coll.CompareString(fa.argumentTypes, fb.argumentTypes); c != 0 {
				return c < 0
			}
			return g.less(fa.returnType, fb.returnType)
		})
		sigs := make(tsUnion, len(group))
		for k, e := range group {
			sigs[k] = g.signature(schema, group, e)
		}
		var t tsType = sigs
		if len(sigs) == 1 {
			t = sigs[0]
		}
		out = append(out, member{key: fns[i].fn.name, typ: t})
		i = j
	}
	return out
}

// signature is { Args; Returns; SetofOptions? } of one overload. Calls
// PostgREST cannot resolve return an error type instead of a result.
func (g *gen) signature(schema string, group []fnEntry, e fnEntry) tsObject {
	var args tsType = tsKeyword("never")
	if len(e.in) > 0 {
		var ms []member
		for _, a := range e.in {
			ms = append(ms, member{key: a.name, optional: a.hasDefault, typ: g.typeOf(schema, a.typ)})
		}
		args = tsObject{members: ms}
	}
	ret := g.returnType(schema, e.fn)
	if msg := g.conflict(schema, group, e); msg != "" {
		ret = errorType(msg)
	} else if g.rowArgOnly(e) {
		ret = errorType(fmt.Sprintf("the function %s.%s with parameter or with a single unnamed json/jsonb parameter, "+
			"but no matches were found in the schema cache", schema, e.fn.name))
	}
	ret, setof := g.result(e.fn, ret)
	members := []member{{key: "Args", typ: args}, {key: "Returns", typ: ret}}
	if setof != nil {
		members = append(members, *setof)
	}
	return tsObject{members: members}
}

func errorType(msg string) tsType {
	return tsIntersection{tsObject{members: []member{{key: "error", typ: tsKeyword("true")}}}, tsString(msg)}
}

func (g *gen) typeOf(schema string, oid uint32) tsType {
	if t := g.m.types[oid]; t != nil {
		return g.tsOf(schema, t.name)
	}
	return tsKeyword("unknown")
}

// returnType is what one call returns: the columns of RETURNS TABLE, the
// row of a relation of the same schema, or the mapped return type.
func (g *gen) returnType(schema string, f *function) tsType {
	var cols []member
	for _, a := range f.args {
		if a.mode == "table" {
			cols = append(cols, member{key: a.name, typ: g.typeOf(schema, a.typ)})
		}
	}
	if len(cols) > 0 {
		return tsObject{expand: true, members: cols}
	}
	if r := g.relByOID[f.returnRelID]; r != nil && r.schema == schema {
		var ms []member
		for _, c := range r.columns {
			ms = append(ms, member{key: c.name, typ: g.columnType(schema, c)})
		}
		return tsObject{expand: true, members: ms}
	}
	return g.typeOf(schema, f.returnOID)
}

// returnedRelation names the relation (or composite type) whose rows f
// returns, "" when it returns something else.
func (g *gen) returnedRelation(f *function) string {
	if f.returnRelID == 0 {
		return ""
	}
	if r := g.relByOID[f.returnRelID]; r != nil {
		return r.name
	}
	if t := g.rowTypes[f.returnOID]; t != nil {
		return t.name
	}
	return ""
}

// result adds the set-returning array and the SetofOptions that let
// postgrest-js type select() on the call's rows. A set of rows estimated at
// one row (ROWS 1) is typed as one row.
func (g *gen) result(f *function, ret tsType) (tsType, *member) {
	to := g.returnedRelation(f)
	many := f.rows > 1
	var setof *member
	if to != "" {
		setof = setofOptions("*", to, !many, f.setOf)
	}
	if len(f.args) == 1 {
		if src := g.rowTypes[f.args[0].typ]; src != nil && to != "" {
			// Called on a row of another relation (an embedded function).
			if f.setOf {
				setof = setofOptions(src.format, to, !many, true)
			} else {
				setof = setofOptions(src.format, to, true, false)
			}
		}
	}
	if f.setOf && !(!many && to != "") {
		ret = arrayOf(ret)
	}
	return ret, setof
}

// arrayOf appends [] the way the reference's text does: to the last part
// of an intersection.
func arrayOf(t tsType) tsType {
	if x, ok := t.(tsIntersection); ok {
		y := append(tsIntersection{}, x...)
		y[len(y)-1] = tsArray{y[len(y)-1]}
		return y
	}
	return tsArray{t}
}

func setofOptions(from, to string, oneToOne, setOf bool) *member {
	return &member{key: "SetofOptions", typ: tsObject{expand: true, members: []member{
		{key: "from", typ: tsString(from)},
		{key: "to", typ: tsString(to)},
		{key: "isOneToOne", typ: tsKeyword(fmt.Sprint(oneToOne))},
		{key: "isSetofReturn", typ: tsKeyword(fmt.Sprint(setOf))},
	}}}
}

// rowArgOnly reports a function of one unnamed row argument that returns
// no rows of a relation: PostgREST cannot call it (it is a computed field).
func (g *gen) rowArgOnly(e fnEntry) bool {
	if len(e.in) != 1 || e.in[0].name != "" {
		return false
	}
	return g.rowTypes[e.in[0].typ] != nil && g.returnedRelation(e.fn) == ""
}

// conflict is PostgREST's error for overloads it cannot choose between: a
// function without arguments next to one whose only argument is unnamed
// with a default, or one named argument of different types.
func (g *gen) conflict(schema string, group []fnEntry, e fnEntry) string {
	if len(group) < 2 {
		return ""
	}
	const hint = ". Try renaming the parameters or the function itself in the database so function overloading can be resolved"
	if len(e.in) == 0 {
		for _, o := range group {
			if o.fn != e.fn && len(o.in) == 1 && o.in[0].name == "" && o.in[0].hasDefault {
				ret := "unknown"
				if t := g.m.types[o.fn.returnOID]; t != nil {
					ret = t.name
				}
				return fmt.Sprintf("Could not choose the best candidate function between: %s.%s(), %s.%s( => %s)%s",
					schema, e.fn.name, schema, e.fn.name, ret, hint)
			}
		}
		return ""
	}
	if len(e.in) != 1 || e.in[0].name == "" {
		return ""
	}
	clash := []fnEntry{e}
	for _, o := range group {
		if o.fn != e.fn && len(o.in) == 1 && o.in[0].name == e.in[0].name && o.in[0].typ != e.in[0].typ {
			clash = append(clash, o)
		}
	}
	if len(clash) == 1 {
		return ""
	}
	sort.SliceStable(clash, func(i, j int) bool { return clash[i].in[0].typ < clash[j].in[0].typ })
	parts := make([]string, len(clash))
	for i, c := range clash {
		name := "unknown"
		if t := g.m.types[c.in[0].typ]; t != nil {
			name = t.name
		}
		parts[i] = fmt.Sprintf("%s.%s(%s => %s)", schema, e.fn.name, c.in[0].name, name)
	}
	return "Could not choose the best candidate function between: " + strings.Join(parts, ", ") + hint
}
