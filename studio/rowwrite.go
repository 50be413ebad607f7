package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// maxDeleteRows is the most rows one delete names.
const maxDeleteRows = 1000

// textValue turns a JSON value from the editor into the text PostgreSQL
// reads for column c (its input function does the typing, so enums,
// timestamps, numerics and domains check themselves): strings as they are,
// numbers and booleans as written, objects and arrays as JSON for json
// columns, arrays as array literals for array columns. nil is NULL.
func textValue(c column, raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	isJSON := c.Type == "json" || c.Type == "jsonb"
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return &s, nil
	case '{':
		if !isJSON {
			return nil, fmt.Errorf("column %s (%s) takes no JSON object", c.Name, c.Type)
		}
	case '[':
		if !isJSON {
			if c.Category != "A" {
				return nil, fmt.Errorf("column %s (%s) takes no list", c.Name, c.Type)
			}
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, err
			}
			lit, err := arrayLiteral(items)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c.Name, err)
			}
			return &lit, nil
		}
	}
	s := string(raw)
	return &s, nil
}

// arrayLiteral writes a PostgreSQL array literal ({a,"b c",NULL,{1,2}}) of
// JSON items: every string quoted, so commas, braces and quotes in values
// stay values.
func arrayLiteral(items []json.RawMessage) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		it = bytes.TrimSpace(it)
		switch {
		case len(it) == 0 || string(it) == "null":
			b.WriteString("NULL")
		case it[0] == '[':
			var sub []json.RawMessage
			if err := json.Unmarshal(it, &sub); err != nil {
				return "", err
			}
			s, err := arrayLiteral(sub)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			text := string(it)
			if it[0] == '"' {
				if err := json.Unmarshal(it, &text); err != nil {
					return "", err
				}
			}
			b.WriteByte('"')
			b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(text))
			b.WriteByte('"')
		}
	}
	b.WriteByte('}')
	return b.String(), nil
}

// assignments renders values as `col = CAST($n::text AS type)` pieces,
// in column-name order.
func assignments(t *table, values map[string]json.RawMessage, b *sqlBuilder) (cols, exprs []string, err error) {
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		c, ok := t.col(name)
		if !ok {
			return nil, nil, badRequest("column %q does not exist on %s.%s", name, t.Schema, t.Name)
		}
		if c.Generated {
			return nil, nil, badRequest("column %q is generated: it cannot be written", name)
		}
		v, err := textValue(c, values[name])
		if err != nil {
			return nil, nil, badRequest("%s", err.Error())
		}
		cols = append(cols, ident(name))
		if v == nil {
			exprs = append(exprs, "NULL")
		} else {
			exprs = append(exprs, fmt.Sprintf("CAST(%s::text AS %s)", b.arg(*v), c.Type))
		}
	}
	return cols, exprs, nil
}

// pkCondition renders the primary-key match of one row.
func pkCondition(t *table, pk map[string]json.RawMessage, b *sqlBuilder) (string, error) {
	if len(t.PK) == 0 {
		return "", badRequest("%s.%s has no primary key: edit its rows in the SQL editor", t.Schema, t.Name)
	}
	var conds []string
	for _, k := range t.PK {
		raw, ok := pk[k]
		if !ok {
			return "", badRequest("the row's key needs %q", k)
		}
		c, _ := t.col(k)
		v, err := textValue(c, raw)
		if err != nil || v == nil {
			return "", badRequest("the row's key %q must have a value", k)
		}
		conds = append(conds, fmt.Sprintf("%s = CAST(%s::text AS %s)", ident(k), b.arg(*v), c.Type))
	}
	return strings.Join(conds, " AND "), nil
}

// writeTx runs a table editor write as the admin role with the statement
// timeout.
func (s *Service) writeTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.d.Admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('statement_timeout', $1, true)`,
			strconv.FormatInt(s.cfg.StatementTimeout.Milliseconds(), 10)); err != nil {
			return err
		}
		return fn(tx)
	})
}

// insertRow inserts {"values": {column: value}} and answers with the row.
func (s *Service) insertRow(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tableFromPath(r)
	if err != nil {
		return err
	}
	var body struct {
		Values map[string]json.RawMessage `json:"values"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	b := &sqlBuilder{}
	cols, exprs, err := assignments(t, body.Values, b)
	if err != nil {
		return err
	}
	noteAudit(r.Context(), t.Schema+"."+t.Name, nil)
	sql := fmt.Sprintf("INSERT INTO %s AS x DEFAULT VALUES RETURNING to_json(x)", t.qualified())
	if len(cols) > 0 {
		sql = fmt.Sprintf("INSERT INTO %s AS x (%s) VALUES (%s) RETURNING to_json(x)", t.qualified(), strings.Join(cols, ", "), strings.Join(exprs, ", "))
	}
	var row json.RawMessage
	if err := s.writeTx(r.Context(), func(tx pgx.Tx) error { return tx.QueryRow(r.Context(), sql, b.args...).Scan(&row) }); err != nil {
		return err
	}
	writeRaw(w, http.StatusCreated, row)
	return nil
}

// updateRow sets {"values"} on the row {"pk"} names and answers with it.
func (s *Service) updateRow(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tableFromPath(r)
	if err != nil {
		return err
	}
	var body struct {
		PK     map[string]json.RawMessage `json:"pk"`
		Values map[string]json.RawMessage `json:"values"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if len(body.Values) == 0 {
		return badRequest("values names no column to change")
	}
	b := &sqlBuilder{}
	cols, exprs, err := assignments(t, body.Values, b)
	if err != nil {
		return err
	}
	where, err := pkCondition(t, body.PK, b)
	if err != nil {
		return err
	}
	noteAudit(r.Context(), t.Schema+"."+t.Name, map[string]any{"pk": body.PK})
	sets := make([]string, len(cols))
	for i := range cols {
		sets[i] = cols[i] + " = " + exprs[i]
	}
	sql := fmt.Sprintf("UPDATE %s AS x SET %s WHERE %s RETURNING to_json(x)", t.qualified(), strings.Join(sets, ", "), where)
	var row json.RawMessage
	err = s.writeTx(r.Context(), func(tx pgx.Tx) error { return tx.QueryRow(r.Context(), sql, b.args...).Scan(&row) })
	if isNoRows(err) {
		return notFound("no row of %s.%s has that primary key", t.Schema, t.Name)
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, row)
	return nil
}

// deleteRows deletes the rows {"pks": [{...}, ...]} names, all or none.
func (s *Service) deleteRows(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tableFromPath(r)
	if err != nil {
		return err
	}
	var body struct {
		PKs []map[string]json.RawMessage `json:"pks"`
	}
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if len(body.PKs) == 0 || len(body.PKs) > maxDeleteRows {
		return badRequest("pks must name from 1 to %d rows", maxDeleteRows)
	}
	noteAudit(r.Context(), t.Schema+"."+t.Name, map[string]any{"rows": len(body.PKs)})
	var deleted int64
	err = s.writeTx(r.Context(), func(tx pgx.Tx) error {
		for _, pk := range body.PKs {
			b := &sqlBuilder{}
			where, err := pkCondition(t, pk, b)
			if err != nil {
				return err
			}
			tag, err := tx.Exec(r.Context(), fmt.Sprintf("DELETE FROM %s WHERE %s", t.qualified(), where), b.args...)
			if err != nil {
				return err
			}
			deleted += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return okJSON(w, map[string]int64{"deleted": deleted})
}
