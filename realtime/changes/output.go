package changes

import (
	"bytes"
	"context"
	"encoding/json"
)

// data renders the "data" object of a postgres_changes event for a role:
// the columns it may SELECT (narrowed by select, primary key always kept),
// the records limited to them, and the errors the reference reports
// (those visibility lets through).
func (o *output) data(ctx context.Context, e *Engine, role string, m match) json.RawMessage {
	rel, ch := o.rel, o.ch
	var b bytes.Buffer
	b.WriteString(`{"schema":`)
	b.Write(jsonString(rel.Schema))
	b.WriteString(`,"table":`)
	b.Write(jsonString(rel.Table))
	privs := rel.selectable(ctx, e.admin, role)
	// (A role that may not select the key gets nothing: see visibility.)
	if !rel.hasPK() {
		// No row data at all, as the reference sends it.
		b.WriteString(`,"commit_timestamp":null,"type":`)
		b.Write(jsonString(ch.Type))
		b.WriteString(`,"columns":[]`)
		if ch.Type != "DELETE" {
			b.WriteString(`,"record":{}`)
		}
		if ch.Type != "INSERT" {
			b.WriteString(`,"old_record":{}`)
		}
		b.WriteString(`,"errors":[`)
		b.Write(jsonString(errNoPrimaryKey))
		b.WriteString("]}")
		return b.Bytes()
	}
	keep := o.columnsFor(privs, m)
	b.WriteString(`,"commit_timestamp":`)
	b.Write(jsonString(ch.Commit.UTC().Format("2006-01-02T15:04:05.000Z")))
	b.WriteString(`,"type":`)
	b.Write(jsonString(ch.Type))
	b.WriteString(`,"columns":[`)
	first := true
	for i, col := range rel.Cols {
		if !keep[i] {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`{"name":`)
		b.Write(jsonString(col.Name))
		b.WriteString(`,"type":`)
		b.Write(jsonString(col.TypName))
		b.WriteByte('}')
	}
	b.WriteByte(']')
	pkOnly := make([]bool, len(rel.Cols))
	for i, col := range rel.Cols {
		pkOnly[i] = col.PK && keep[i]
	}
	switch ch.Type {
	case "INSERT":
		b.WriteString(`,"record":`)
		b.Write(o.render(o.record, keep))
	case "UPDATE":
		b.WriteString(`,"record":`)
		b.Write(o.render(o.record, keep))
		b.WriteString(`,"old_record":`)
		switch ch.OldKind {
		case 'O':
			b.Write(o.render(o.old, keep))
		case 'K':
			b.Write(o.render(o.old, pkOnly))
		default:
			// Default replica identity: the old row's key is the new one's.
			b.Write(o.render(o.record, pkOnly))
		}
	case "DELETE":
		b.WriteString(`,"old_record":`)
		if ch.OldKind == 'O' && !rel.RLS {
			b.Write(o.render(o.old, keep))
		} else {
			// With RLS the deleted row is not checked, so only its key goes out.
			b.Write(o.render(o.old, pkOnly))
		}
	}
	b.WriteString(`,"errors":`)
	if o.large {
		b.WriteString(`["` + errTooLarge + `"]`)
	} else {
		b.WriteString("null")
	}
	b.WriteByte('}')
	return b.Bytes()
}

// pkSelectable reports whether the role may select every key column.
func pkSelectable(rel *relInfo, privs []bool) bool {
	for i, col := range rel.Cols {
		if col.PK && !privs[i] {
			return false
		}
	}
	return true
}

// columnsFor is the columns a subscriber sees: selectable ones, narrowed
// by the select lists of its matching bindings (a binding without select
// shows everything), primary key always included.
func (o *output) columnsFor(privs []bool, m match) []bool {
	keep := make([]bool, len(o.rel.Cols))
	var selects map[string]bool
	for _, b := range m.sub.bindings {
		if !contains(m.ids, b.ID) {
			continue
		}
		if b.p.selects == nil {
			selects = nil
			break
		}
		if selects == nil {
			selects = map[string]bool{}
		}
		for _, s := range b.p.selects {
			selects[s] = true
		}
	}
	for i, col := range o.rel.Cols {
		keep[i] = privs[i] && (selects == nil || selects[col.Name] || col.PK)
	}
	return keep
}

func contains(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// render writes the kept columns of a record in column order; in a record
// over the size limit, values longer than 64 bytes are dropped.
func (o *output) render(rec map[string]json.RawMessage, keep []bool) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for i, col := range o.rel.Cols {
		v, ok := rec[col.Name]
		if !keep[i] || !ok {
			continue
		}
		if o.large && len(v) > keptValueBytes {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(jsonString(col.Name))
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
