package rest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ViewColumnSource is a view column that exposes a column of another
// relation as it is, under the view's name for it.
type ViewColumnSource struct {
	ViewSchema, View, Column         string
	Schema, Relation, RelationColumn string
}

// ViewColumnSources lists every column of the views and materialized views
// in schemas that comes unchanged from a column of another relation (a
// table or a view, in any schema), in view column order. Computed columns
// are left out, and so is a view whose rule this reader does not follow.
// The schema cache derives view keys from it; type generation derives
// view relationships.
func ViewColumnSources(ctx context.Context, q querier, schemas []string) ([]ViewColumnSource, error) {
	type origin struct {
		schema, view string
		cols         []viewColumn
	}
	var views []origin
	oids := map[uint32]bool{}
	if err := scanRows(ctx, q, viewRulesSQL, []any{schemas}, func(r pgx.Rows) error {
		var vs, vn, tree string
		if err := r.Scan(&vs, &vn, &tree); err != nil {
			return err
		}
		cols, err := viewColumnOrigins(tree)
		if err != nil {
			// A rule this reader does not follow costs that view its
			// inferred keys, never the whole schema cache.
			return nil
		}
		for _, c := range cols {
			if c.table != 0 {
				oids[c.table] = true
			}
		}
		views = append(views, origin{schema: vs, view: vn, cols: cols})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load view rules: %w", err)
	}
	type attr struct {
		oid    uint32
		attnum int
	}
	type rel struct{ schema, name string }
	rels := map[uint32]rel{}
	names := map[attr]string{}
	// Names are looked up by oid in one query for all views, wherever
	// the origins live.
	if len(oids) > 0 {
		list := make([]uint32, 0, len(oids))
		for o := range oids {
			list = append(list, o)
		}
		if err := scanRows(ctx, q, columnNamesSQL, []any{list}, func(r pgx.Rows) error {
			var oid uint32
			var ns, name, col string
			var num int16
			if err := r.Scan(&oid, &ns, &name, &num, &col); err != nil {
				return err
			}
			rels[oid] = rel{ns, name}
			names[attr{oid, int(num)}] = col
			return nil
		}); err != nil {
			return nil, fmt.Errorf("load view columns: %w", err)
		}
	}
	// A column whose origin is missing from the names (a dropped or
	// system column) is left out rather than guessed.
	var out []ViewColumnSource
	for _, v := range views {
		for _, c := range v.cols {
			base, col := rels[c.table], names[attr{c.table, c.attnum}]
			if base.name == "" || col == "" {
				continue
			}
			out = append(out, ViewColumnSource{ViewSchema: v.schema, View: v.view, Column: c.name,
				Schema: base.schema, Relation: base.name, RelationColumn: col})
		}
	}
	return out, nil
}
