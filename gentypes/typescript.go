// Package gentypes generates the TypeScript `Database` type that
// supabase-js takes (`createClient<Database>(...)`) from a live schema: the
// shape `supabase gen types typescript` writes, with the same helper types
// (Tables, TablesInsert, TablesUpdate, Enums, CompositeTypes) and Constants.
// Everything comes from the system catalogs in one read-only snapshot, and
// every list is sorted, so the same schema always gives the same bytes.
package gentypes

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// PostgrestVersion is the PostgREST release whose behaviour /rest/v1
// follows (deploy/README.md lists the differences). supabase-js reads it
// from the generated type to allow what that release allows (maxAffected,
// spreads of to-many embeds).
const PostgrestVersion = "14"

// printWidth is the line width the layout aims for (prettier's default).
const printWidth = 80

// DB is what TypeScript reads through: a pool or a connection.
type DB interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// TypeScript returns the TypeScript types of schemas (those that exist;
// "public" is also the helper types' default schema).
func TypeScript(ctx context.Context, db DB, schemas []string) ([]byte, error) {
	var m *model
	err := pgx.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// Function signatures name types as seen from this search path;
		// fixing it keeps the output independent of the connection's.
		if _, err := tx.Exec(ctx, `SET LOCAL search_path TO public`); err != nil {
			return err
		}
		var err error
		m, err = load(ctx, tx, schemas)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gen types: %w", err)
	}
	return []byte(render(m, printWidth)), nil
}

// gen holds the model indexed the ways rendering needs.
type gen struct {
	m        *model
	coll     *collate.Collator
	schemas  map[string]*schemaObjects
	relByOID map[uint32]*relation
	rowTypes map[uint32]*pgType // composite and row types, by type oid
}

type schemaObjects struct {
	tables, views []*relation
	rels          map[*relation][]relationship
	functions     []fnEntry
	enums, comps  []*pgType
}

// fnEntry is a function PostgREST can call, with its input arguments.
type fnEntry struct {
	fn *function
	in []arg
}

func render(m *model, width int) string {
	g := &gen{m: m, coll: collate.New(language.Und), schemas: map[string]*schemaObjects{},
		relByOID: map[uint32]*relation{}, rowTypes: map[uint32]*pgType{}}
	g.index()
	var b strings.Builder
	b.WriteString(jsonType)
	b.WriteString("\n")
	b.WriteString(printDoc(docs{"export type Database = ", printType(g.database(), inProperty)}, width))
	b.WriteString("\n\n")
	b.WriteString(helperTypes)
	b.WriteString("\n")
	b.WriteString(printDoc(docs{"export const Constants = ", printValue(g.constants()), " as const"}, width))
	b.WriteString("\n")
	return b.String()
}

// less orders names as the reference tool does (JavaScript's localeCompare:
// the Unicode collation, so "user_id" sorts before "userid" and case
// matters only between otherwise equal names).
func (g *gen) less(a, b string) bool { return g.coll.CompareString(a, b) < 0 }

func (g *gen) sortStrings(s []string) {
	sort.SliceStable(s, func(i, j int) bool { return g.less(s[i], s[j]) })
}

func (g *gen) index() {
	g.sortStrings(g.m.schemas)
	for _, s := range g.m.schemas {
		g.schemas[s] = &schemaObjects{rels: map[*relation][]relationship{}}
	}
	for _, t := range g.m.typeList {
		if t.relID != 0 {
			g.rowTypes[t.oid] = t
		}
		if so := g.schemas[t.schema]; so != nil {
			if len(t.enums) > 0 {
				so.enums = append(so.enums, t)
			}
			if len(t.attributes) > 0 {
				so.comps = append(so.comps, t)
			}
		}
	}
	rels := g.m.relationships
	sort.SliceStable(rels, func(i, j int) bool {
		a, b := rels[i], rels[j]
		if c := g.coll.CompareString(a.fk, b.fk); c != 0 {
			return c < 0
		}
		if c := g.coll.CompareString(a.refRelName, b.refRelName); c != 0 {
			return c < 0
		}
		return g.less(jsonList(a.refColumns), jsonList(b.refColumns))
	})
	for _, r := range g.m.relations {
		g.relByOID[r.oid] = r
		sort.SliceStable(r.columns, func(i, j int) bool { return g.less(r.columns[i].name, r.columns[j].name) })
		so := g.schemas[r.schema]
		if so == nil {
			continue
		}
		if r.isTable() {
			so.tables = append(so.tables, r)
		} else {
			so.views = append(so.views, r)
		}
	}
	for _, k := range rels {
		so := g.schemas[k.schema]
		if so == nil || k.refSchema != k.schema {
			continue
		}
		for _, r := range g.m.relations {
			if r.schema == k.schema && r.name == k.relation {
				so.rels[r] = append(so.rels[r], k)
			}
		}
	}
	for _, f := range g.m.functions {
		so := g.schemas[f.schema]
		if so == nil {
			continue
		}
		sort.SliceStable(f.args, func(i, j int) bool { return g.less(f.args[i].name, f.args[j].name) })
		var in []arg
		for _, a := range f.args {
			if a.isInput() {
				in = append(in, a)
			}
		}
		if g.callable(f, in) {
			so.functions = append(so.functions, fnEntry{f, in})
		}
	}
	for _, so := range g.schemas {
		byName := func(rs []*relation) {
			sort.SliceStable(rs, func(i, j int) bool { return g.less(rs[i].name, rs[j].name) })
		}
		byName(so.tables)
		byName(so.views)
		sort.SliceStable(so.functions, func(i, j int) bool { return g.less(so.functions[i].fn.name, so.functions[j].fn.name) })
		for _, ts := range [][]*pgType{so.enums, so.comps} {
			sort.SliceStable(ts, func(i, j int) bool { return g.less(ts[i].name, ts[j].name) })
		}
	}
}

// jsonList spells names the way JSON.stringify does, the tie-breaker the
// reference tool sorts relationships by.
func jsonList(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = quote(n)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Types PostgREST accepts as the single unnamed argument of a function
// (the whole request body): json, jsonb and text.
var bodyArgTypes = []uint32{114, 3802, 25}

// callable keeps the functions PostgREST can call by named arguments, plus
// the ones taking one unnamed table row (reported as errors or computed
// fields).
func (g *gen) callable(f *function, in []arg) bool {
	named, defaultsOnly := true, true
	for _, a := range in {
		if a.name == "" {
			named = false
			if !(a.hasDefault && slices.Contains(bodyArgTypes, a.typ)) {
				defaultsOnly = false
			}
		}
	}
	if len(in) == 0 || named || defaultsOnly {
		return true
	}
	if len(in) == 1 && in[0].name == "" {
		_, rowArg := g.rowTypes[in[0].typ]
		return slices.Contains(bodyArgTypes, in[0].typ) || rowArg
	}
	return false
}

// database is the Database type: the PostgREST version, then each schema.
func (g *gen) database() tsObject {
	members := []member{{key: "__InternalSupabase", comment: "Tells supabase-js which PostgREST release the API follows.",
		typ: tsObject{expand: true, members: []member{{key: "PostgrestVersion", typ: tsString(PostgrestVersion)}}}}}
	for _, s := range g.m.schemas {
		members = append(members, member{key: s, typ: g.schema(s)})
	}
	return tsObject{members: members, expand: true}
}

func (g *gen) schema(name string) tsObject {
	so := g.schemas[name]
	var tables, views, fns, enums, comps []member
	for _, t := range so.tables {
		tables = append(tables, member{key: t.name, typ: g.table(name, t)})
	}
	for _, v := range so.views {
		views = append(views, member{key: v.name, typ: g.view(name, v)})
	}
	fns = g.functions(name)
	for _, e := range so.enums {
		enums = append(enums, member{key: e.name, typ: labels(e.enums)})
	}
	for _, c := range so.comps {
		var attrs []member
		for _, a := range c.attributes {
			t := tsType(tsKeyword("unknown"))
			if at := g.m.types[a.typ]; at != nil {
				t = nullable(g.tsOf(name, at.name))
			}
			attrs = append(attrs, member{key: a.name, typ: t})
		}
		comps = append(comps, member{key: c.name, typ: tsObject{members: attrs, expand: true}})
	}
	return tsObject{expand: true, members: []member{
		{key: "Tables", typ: section(tables)},
		{key: "Views", typ: section(views)},
		{key: "Functions", typ: section(fns)},
		{key: "Enums", typ: section(enums)},
		{key: "CompositeTypes", typ: section(comps)},
	}}
}

// section is an object of members, or a mapped type with no keys.
func section(members []member) tsObject {
	if len(members) == 0 {
		return tsObject{expand: true, members: []member{{raw: "[_ in never]: never"}}}
	}
	return tsObject{expand: true, members: members}
}

func labels(ls []string) tsType {
	if len(ls) == 1 {
		return tsString(ls[0])
	}
	u := make(tsUnion, len(ls))
	for i, l := range ls {
		u[i] = tsString(l)
	}
	return u
}

// constants lists every enum's labels, for runtime use.
func (g *gen) constants() tsObject {
	var schemas []member
	for _, s := range g.m.schemas {
		var enums []member
		for _, e := range g.schemas[s].enums {
			t := make(tsTuple, len(e.enums))
			for i, l := range e.enums {
				t[i] = tsString(l)
			}
			enums = append(enums, member{key: e.name, typ: t})
		}
		schemas = append(schemas, member{key: s, typ: tsObject{expand: true, members: []member{
			{key: "Enums", typ: tsObject{expand: true, members: enums}},
		}}})
	}
	return tsObject{expand: true, members: schemas}
}
