package gentypes

import (
	"fmt"
	"slices"
)

// table is a table's Row, Insert, Update and Relationships.
func (g *gen) table(schema string, t *relation) tsObject {
	var ins, upd []member
	for _, c := range t.columns {
		typ := g.columnType(schema, c)
		if c.identityAlways {
			// GENERATED ALWAYS identities cannot be written at all.
			ins = append(ins, member{key: c.name, optional: true, typ: tsKeyword("never")})
			upd = append(upd, member{key: c.name, optional: true, typ: tsKeyword("never")})
			continue
		}
		ins = append(ins, member{key: c.name, optional: c.nullable || c.identity || c.hasDefault, typ: typ})
		upd = append(upd, member{key: c.name, optional: true, typ: typ})
	}
	return tsObject{expand: true, members: []member{
		{key: "Row", typ: g.row(schema, t)},
		{key: "Insert", typ: tsObject{expand: true, members: ins}},
		{key: "Update", typ: tsObject{expand: true, members: upd}},
		{key: "Relationships", typ: g.relationshipsOf(schema, t)},
	}}
}

// view is a view's Row, Insert and Update when it is updatable (every
// column optional and nullable, those that cannot be written never), and
// Relationships.
func (g *gen) view(schema string, v *relation) tsObject {
	members := []member{{key: "Row", typ: g.row(schema, v)}}
	if v.updatable {
		var w []member
		for _, c := range v.columns {
			if !c.updatable {
				w = append(w, member{key: c.name, optional: true, typ: tsKeyword("never")})
				continue
			}
			w = append(w, member{key: c.name, optional: true, typ: nullable(g.tsOf(schema, c.format))})
		}
		members = append(members,
			member{key: "Insert", typ: tsObject{expand: true, members: w}},
			member{key: "Update", typ: tsObject{expand: true, members: w}})
	}
	members = append(members, member{key: "Relationships", typ: g.relationshipsOf(schema, v)})
	return tsObject{expand: true, members: members}
}

func (g *gen) columnType(schema string, c column) tsType {
	t := g.tsOf(schema, c.format)
	if c.nullable {
		return nullable(t)
	}
	return t
}

// row is the columns, then the computed fields: functions taking one
// unnamed row of the relation, which select can name like columns.
func (g *gen) row(schema string, r *relation) tsObject {
	var members []member
	for _, c := range r.columns {
		members = append(members, member{key: c.name, typ: g.columnType(schema, c)})
	}
	for _, e := range g.schemas[schema].functions {
		if e.fn.argumentTypes == r.name {
			members = append(members, member{key: e.fn.name, typ: nullable(g.returnType(schema, e.fn))})
		}
	}
	return tsObject{expand: true, members: members}
}

func (g *gen) relationshipsOf(schema string, r *relation) tsTuple {
	out := tsTuple{}
	for _, k := range g.schemas[schema].rels[r] {
		out = append(out, tsObject{expand: true, members: []member{
			{key: "foreignKeyName", typ: tsString(k.fk)},
			{key: "columns", typ: stringTuple(k.columns)},
			{key: "isOneToOne", typ: tsKeyword(fmt.Sprint(k.oneToOne))},
			{key: "referencedRelation", typ: tsString(k.refRelName)},
			{key: "referencedColumns", typ: stringTuple(k.refColumns)},
		}})
	}
	return out
}

func stringTuple(ss []string) tsTuple {
	t := make(tsTuple, len(ss))
	for i, s := range ss {
		t[i] = tsString(s)
	}
	return t
}

var (
	numberTypes = []string{"int2", "int4", "int8", "float4", "float8", "numeric"}
	stringTypes = []string{"bytea", "bpchar", "varchar", "date", "text", "citext",
		"time", "timetz", "timestamp", "timestamptz", "uuid", "vector", "interval"}
)

// tsOf maps a type name to TypeScript as seen from schema: JSON-shaped
// scalars, arrays of them, then enums, composite types and row types of
// the chosen schemas by name (an enum elsewhere is spelled out); anything
// else is unknown.
func (g *gen) tsOf(schema, name string) tsType {
	switch {
	case name == "bool":
		return tsKeyword("boolean")
	case slices.Contains(numberTypes, name):
		return tsKeyword("number")
	case slices.Contains(stringTypes, name):
		return tsKeyword("string")
	case name == "json" || name == "jsonb":
		return tsRef("Json")
	case name == "void":
		return tsKeyword("undefined")
	case name == "record":
		return tsRef("Record<string, unknown>")
	case len(name) > 1 && name[0] == '_':
		return tsArray{g.tsOf(schema, name[1:])}
	}
	if t := g.typeNamed(schema, name, func(t *pgType) bool { return len(t.enums) > 0 }); t != nil {
		if g.schemas[t.schema] != nil {
			return tsIndexed(index("Database", t.schema, "Enums", t.name))
		}
		return labels(t.enums)
	}
	if t := g.typeNamed(schema, name, func(t *pgType) bool { return len(t.attributes) > 0 }); t != nil {
		if g.schemas[t.schema] != nil {
			return tsIndexed(index("Database", t.schema, "CompositeTypes", t.name))
		}
		return tsKeyword("unknown")
	}
	if r := g.relationNamed(schema, name, func(r *relation) bool { return r.kind == "r" || r.kind == "p" }); r != nil {
		return tsIndexed(index("Database", r.schema, "Tables", r.name, "Row"))
	}
	if r := g.relationNamed(schema, name, func(r *relation) bool { return r.kind == "v" }); r != nil {
		return tsIndexed(index("Database", r.schema, "Views", r.name, "Row"))
	}
	return tsKeyword("unknown")
}

// typeNamed finds a type by name, preferring schema's own.
func (g *gen) typeNamed(schema, name string, ok func(*pgType) bool) *pgType {
	var first *pgType
	for _, t := range g.m.typeList {
		if t.name != name || !ok(t) {
			continue
		}
		if t.schema == schema {
			return t
		}
		if first == nil {
			first = t
		}
	}
	return first
}

func (g *gen) relationNamed(schema, name string, ok func(*relation) bool) *relation {
	var first *relation
	for _, r := range g.m.relations {
		if r.name != name || !ok(r) || g.schemas[r.schema] == nil {
			continue
		}
		if r.schema == schema {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// index spells Database["a"]["b"]...
func index(root string, keys ...string) string {
	s := root
	for _, k := range keys {
		s += "[" + quote(k) + "]"
	}
	return s
}
