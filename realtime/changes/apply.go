package changes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// Change is one committed row change, with the values as pgoutput sends
// them (text format). It is what the leader publishes to other nodes.
type Change struct {
	// LSN (its transaction's commit record) and Seq (its place in the
	// transaction, from 1) order the changes as the slot sends them.
	LSN     uint64    `json:"l,omitempty"`
	Seq     int       `json:"i,omitempty"`
	Rel     uint32    `json:"r"`
	Xid     uint32    `json:"x"`
	Type    string    `json:"k"` // INSERT, UPDATE, DELETE
	Commit  time.Time `json:"c"`
	New     []*string `json:"n,omitempty"`
	Old     []*string `json:"o,omitempty"`
	OldKind byte      `json:"ok,omitempty"` // 'K' key columns only, 'O' the full old row
	// Unchanged lists new-row columns pgoutput did not send (unchanged
	// TOAST values).
	Unchanged []int `json:"u,omitempty"`
}

// Limits of a change record, as the reference's.
const (
	maxRecordBytes  = 1024 * 1024
	keptValueBytes  = 64
	errTooLarge     = "Error 413: Payload Too Large"
	errNoPrimaryKey = "Error 400: Bad Request, no primary key"
)

// match is a subscriber and the ids of its bindings a change satisfies.
type match struct {
	sub *Subscriber
	ids []int64
}

// position is a change's place in the stream.
type position struct {
	lsn uint64
	seq int
}

func (p position) before(q position) bool {
	return p.lsn < q.lsn || p.lsn == q.lsn && p.seq < q.seq
}

// deliver processes a change unless this node already did. Changes reach
// a node in stream order, from its own reader or from the reader's
// notifications; after a hand-over the new reader reads again what the
// previous one had not confirmed, and those repeats are dropped here.
// Processing is serialised so subscribers get changes in commit order.
func (e *Engine) deliver(ctx context.Context, ch *Change) {
	e.order.Lock()
	defer e.order.Unlock()
	if ch.LSN != 0 {
		p := position{lsn: ch.LSN, seq: ch.Seq}
		if !e.last.before(p) {
			return
		}
		e.last = p
	}
	e.process(ctx, ch)
}

// process delivers one change to every subscriber it concerns.
func (e *Engine) process(ctx context.Context, ch *Change) {
	subs := e.subscribers()
	if len(subs) == 0 {
		return
	}
	n := len(ch.New)
	if ch.Type == "DELETE" {
		n = len(ch.Old)
	}
	rel, err := e.rels.get(ctx, ch.Rel, n)
	if err != nil {
		e.log.Warn("realtime: change for unknown table", "oid", ch.Rel, "err", err)
		return
	}
	candidates := candidatesFor(subs, rel, ch)
	if len(candidates) == 0 {
		return
	}
	ev, err := e.evaluate(ctx, rel, ch, candidates)
	if err != nil {
		e.log.Warn("realtime: evaluate change", "table", rel.Schema+"."+rel.Table, "err", err)
		return
	}
	var matched []match
	for _, c := range candidates {
		var ids []int64
		privs := rel.selectable(ctx, e.admin, c.sub.caller.Load().Role)
		for _, b := range c.bindings {
			if ev.passes(b) && filtersReadable(rel, b, privs) && !contains(ids, b.ID) {
				ids = append(ids, b.ID)
			}
		}
		if len(ids) > 0 {
			matched = append(matched, match{sub: c.sub, ids: ids})
		}
	}
	if len(matched) == 0 {
		return
	}
	visible := e.visibility(ctx, rel, ch, ev, matched)
	out := newOutput(rel, ch, ev)
	// A payload depends on the subscriber's role and on which of its
	// bindings matched (a binding's id stands for its parameters):
	// subscribers alike share one.
	shared := map[string]json.RawMessage{}
	for i, m := range matched {
		if !visible[i] {
			continue
		}
		key := m.sub.caller.Load().Role + fmt.Sprint(m.ids)
		p, ok := shared[key]
		if !ok {
			p = out.payload(ctx, e, m)
			shared[key] = p
		}
		m.sub.deliver(p)
	}
}

// candidate is a subscriber with the bindings whose table and event fit.
type candidate struct {
	sub      *Subscriber
	bindings []*sbinding
}

// candidatesFor is the subscribers with bindings for the change's table
// and type that subscribed before it committed.
func candidatesFor(subs []*Subscriber, rel *relInfo, ch *Change) []candidate {
	typ := ch.Type
	var out []candidate
	for _, s := range subs {
		if ch.LSN != 0 && ch.LSN < s.from.Load() {
			continue
		}
		var bs []*sbinding
		for _, b := range s.bindings {
			if b.valid.Load() && (b.p.action == "*" || b.p.action == typ) &&
				matches(b.p.schema, rel.Schema) && matches(b.p.table, rel.Table) {
				bs = append(bs, b)
			}
		}
		if len(bs) > 0 {
			out = append(out, candidate{sub: s, bindings: bs})
		}
	}
	return out
}

// evaluation is what was computed for a change, here or by one query:
// the records as to_jsonb renders them (by column) and each distinct
// filter's result.
type evaluation struct {
	record, old map[string]json.RawMessage
	filters     map[filter]bool
}

func (ev *evaluation) passes(b *sbinding) bool {
	for _, f := range b.p.filters {
		if !ev.filters[f] {
			return false
		}
	}
	return true
}

// evaluate casts the change's text values to their column types (records
// as to_jsonb renders them) and runs every filter: here when every value
// and filter allows it (local.go), else in one query.
func (e *Engine) evaluate(ctx context.Context, rel *relInfo, ch *Change, cands []candidate) (*evaluation, error) {
	var fs []filter
	seen := map[filter]bool{}
	for _, c := range cands {
		for _, b := range c.bindings {
			for _, f := range b.p.filters {
				if !seen[f] {
					seen[f] = true
					fs = append(fs, f)
				}
			}
		}
	}
	if ev, ok := evaluateLocally(rel, ch, fs); ok {
		return ev, nil
	}
	return e.evaluateSQL(ctx, rel, ch, fs)
}

// evaluateLocally is evaluate without PostgreSQL; false when a value or a
// filter needs it.
func evaluateLocally(rel *relInfo, ch *Change, fs []filter) (*evaluation, bool) {
	ev := &evaluation{filters: make(map[filter]bool, len(fs))}
	var ok bool
	if ev.record, ok = localRecord(rel, ch.New, ch.Unchanged); !ok {
		return nil, false
	}
	if ev.old, ok = localRecord(rel, ch.Old, nil); !ok {
		return nil, false
	}
	row := ch.New
	if ch.Type == "DELETE" {
		row = ch.Old
	}
	for _, f := range fs {
		r, ok := localFilter(rel, f, row)
		if !ok {
			return nil, false
		}
		ev.filters[f] = r
	}
	return ev, true
}

// evaluateSQL is evaluate in one query.
func (e *Engine) evaluateSQL(ctx context.Context, rel *relInfo, ch *Change, fs []filter) (*evaluation, error) {
	unchanged := map[int]bool{}
	for _, i := range ch.Unchanged {
		unchanged[i] = true
	}
	args := []any{ch.New, ch.Old}
	var sel []string
	sel = append(sel, recordSQL(rel, "$1", len(ch.New), unchanged), recordSQL(rel, "$2", len(ch.Old), nil))
	row := "$1"
	if ch.Type == "DELETE" {
		row = "$2"
	}
	for _, f := range fs {
		col := rel.column(f.Column)
		if col == nil {
			sel = append(sel, "false")
			continue
		}
		param := ""
		if f.Op != "is" { // is takes a keyword, not a parameter
			args = append(args, f.Value)
			param = "$" + strconv.Itoa(len(args))
		}
		sel = append(sel, filterSQL(f, col, valueSQL(rel, col, row), param))
	}
	q := "SELECT " + strings.Join(sel, ", ")
	dst := make([]any, 2+len(fs))
	var record, old json.RawMessage
	dst[0], dst[1] = &record, &old
	results := make([]bool, len(fs))
	for i := range fs {
		dst[2+i] = &results[i]
	}
	if err := e.admin.QueryRow(ctx, q, args...).Scan(dst...); err != nil {
		return nil, err
	}
	ev := &evaluation{filters: make(map[filter]bool, len(fs))}
	_ = json.Unmarshal(record, &ev.record)
	_ = json.Unmarshal(old, &ev.old)
	for i, f := range fs {
		ev.filters[f] = results[i]
	}
	return ev, nil
}

// valueSQL is one column's typed value from a text[] parameter.
func valueSQL(rel *relInfo, col *column, param string) string {
	for i := range rel.Cols {
		if &rel.Cols[i] == col {
			return fmt.Sprintf("(%s::text[])[%d]::%s", param, i+1, col.Type)
		}
	}
	return "NULL"
}

// recordSQL builds a row's JSON object from its text values, columns in
// order; unchanged columns are left out. A row with no values is NULL.
func recordSQL(rel *relInfo, param string, n int, skip map[int]bool) string {
	if n == 0 {
		// The parameter is still referenced so its type is known.
		return "(CASE WHEN " + param + "::text[] IS NULL THEN NULL END)::jsonb"
	}
	var parts []string
	for i := range rel.Cols {
		if i >= n || skip[i] {
			continue
		}
		parts = append(parts, fmt.Sprintf("(%s::text[])[%d]::%s AS %s", param, i+1, rel.Cols[i].Type,
			pgx.Identifier{rel.Cols[i].Name}.Sanitize()))
	}
	if len(parts) == 0 {
		return "'{}'::jsonb"
	}
	return "(SELECT to_jsonb(r) FROM (SELECT " + strings.Join(parts, ", ") + ") r)"
}

// filterValueSQL is the filter's value cast to the column's type.
func filterValueSQL(f filter, col *column, param string) string {
	if f.Op == "in" {
		return param + "::" + col.Type + "[]"
	}
	if f.Op == "like" || f.Op == "ilike" || f.Op == "match" || f.Op == "imatch" {
		return param + "::text"
	}
	if f.Op == "is" {
		return "NULL"
	}
	return param + "::" + col.Type
}

// filterSQL is one filter as a boolean that is never NULL.
func filterSQL(f filter, col *column, value, param string) string {
	var expr string
	switch f.Op {
	case "in":
		expr = value + " = ANY(" + filterValueSQL(f, col, param) + ")"
	case "is":
		kw := map[string]string{"null": "NULL", "true": "TRUE", "false": "FALSE", "unknown": "UNKNOWN"}[strings.ToLower(f.Value)]
		if kw == "" {
			return "false"
		}
		expr = value + " IS " + kw
	case "like", "ilike", "match", "imatch":
		expr = value + "::text " + filterOps.Get()[f.Op] + " " + filterValueSQL(f, col, param)
	default:
		expr = value + " " + filterOps.Get()[f.Op] + " " + filterValueSQL(f, col, param)
	}
	if f.Negate {
		expr = "NOT (" + expr + ")"
	}
	return "coalesce(" + expr + ", false)"
}

// visibility decides, per matched subscriber, whether it receives the
// change. A subscriber receives nothing about a row it may not see: not
// when its role may not SELECT the table's key (the reference sends those
// an empty event with "Error 401: Unauthorized", which tells them the
// table, the kind of change and when), and not for a table without a key
// under RLS, where visibility cannot be checked (the reference sends
// "Error 400"; Basalt sends that only where RLS hides nothing). DELETEs go
// to everyone else whose filters matched, as in the reference: the row is
// gone and cannot be checked, so under RLS only its key is sent. Other
// changes to a table with RLS are checked as each subscriber's caller, in
// one round trip.
func (e *Engine) visibility(ctx context.Context, rel *relInfo, ch *Change, ev *evaluation, ms []match) []bool {
	out := make([]bool, len(ms))
	// One check per distinct caller; subscribers with the same claims share it.
	idx := map[string]int{}
	var callers []pg.Caller
	which := make([]int, len(ms))
	for i, m := range ms {
		c := *m.sub.caller.Load()
		which[i] = -1
		privs := rel.selectable(ctx, e.admin, c.Role)
		switch {
		case !rel.hasPK():
			out[i] = !rel.RLS && slices.Contains(privs, true)
		case !pkSelectable(rel, privs):
		case ch.Type == "DELETE" || !rel.RLS:
			out[i] = true
		default:
			k := c.Role + "\x00" + string(c.Claims)
			j, ok := idx[k]
			if !ok {
				j = len(callers)
				idx[k] = j
				callers = append(callers, pg.Caller{Role: c.Role, Claims: c.Claims, Headers: c.Headers})
			}
			which[i] = j
		}
	}
	if len(callers) == 0 {
		return out
	}
	seen := e.checkRows(ctx, rel, ch, callers)
	for i := range ms {
		if which[i] >= 0 {
			out[i] = seen[which[i]]
		}
	}
	return out
}

// checkRows reports, per caller, whether the changed row is visible to it.
// The slot sends a transaction once its commit record is flushed, a moment
// before other sessions see it. A lone caller's check also tells whether
// its own snapshot saw the transaction (checkLone): the common case, a
// subscription filtered to the caller's rows, costs one round trip. For
// several callers that test would cost more in every statement than one
// wait for the transaction before them all; their checks then go out in
// one pipeline.
func (e *Engine) checkRows(ctx context.Context, rel *relInfo, ch *Change, callers []pg.Caller) []bool {
	var key []*string // the key's values, in column order
	for i, col := range rel.Cols {
		if col.PK && i < len(ch.New) {
			key = append(key, ch.New[i])
		}
	}
	if len(callers) == 1 {
		return []bool{e.checkLone(ctx, rel, ch, callers[0], key)}
	}
	e.waitVisible(ctx, ch.Xid)
	seen := make([]bool, len(callers))
	err := pg.QueryRowsAsCallers(ctx, e.user, callers, func(i int, row pgx.Row) error {
		var visible bool
		return row.Scan(&visible, &seen[i])
	}, rel.checkSQL(false), key, int64(ch.Xid))
	if err != nil {
		e.log.Warn("realtime: row-level security check", "table", rel.Schema+"."+rel.Table, "err", err)
	}
	return seen
}

// checkLone is checkRows for one caller, asked again while its statement's
// snapshot does not see the transaction yet (after 0.1 ms, doubling up to
// 50 ms, for about two seconds at most).
func (e *Engine) checkLone(ctx context.Context, rel *relInfo, ch *Change, caller pg.Caller, key []*string) bool {
	q := rel.checkSQL(true)
	delay := 100 * time.Microsecond
	for range visibleAttempts {
		var visible, seen bool
		err := pg.QueryRowAsCaller(ctx, e.user, caller, func(row pgx.Row) error {
			return row.Scan(&visible, &seen)
		}, q, key, int64(ch.Xid))
		if err != nil {
			e.log.Warn("realtime: row-level security check", "table", rel.Schema+"."+rel.Table, "err", err)
			return false
		}
		if visible || ctx.Err() != nil {
			return seen
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
	e.log.Warn("realtime: transaction not visible", "xid", ch.Xid, "table", rel.Schema+"."+rel.Table)
	return false
}

// visibleAttempts bounds how often a row check is repeated while its
// transaction is not visible yet.
const visibleAttempts = 50

// checkSQL is the row check of the table: whether the statement's snapshot
// sees transaction $2 (its 32-bit id widened with the current epoch; 0:
// unknown, taken as seen; not tested unless folded: then always true), and
// whether a row with the change's key ($1, the key columns' text values in
// column order) is visible to the caller.
func (r *relInfo) checkSQL(folded bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.check[folded] != "" {
		return r.check[folded]
	}
	var conds []string
	for _, col := range r.Cols {
		if col.PK {
			conds = append(conds, fmt.Sprintf("%s = ($1::text[])[%d]::%s", pgx.Identifier{col.Name}.Sanitize(), len(conds)+1, col.Type))
		}
	}
	exists := `EXISTS (SELECT 1 FROM ` + pgx.Identifier{r.Schema, r.Table}.Sanitize() + ` WHERE ` + strings.Join(conds, " AND ") + `)`
	r.check[false] = `SELECT $2::bigint IS NOT NULL, ` + exists
	r.check[true] = `
WITH s AS (SELECT pg_current_snapshot() AS snap, pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax)
SELECT $2::bigint = 0 OR pg_visible_in_snapshot(
  ((((s.xmax >> 32) - CASE WHEN $2::bigint > (s.xmax & 4294967295) THEN 1 ELSE 0 END) << 32) | $2::bigint)::text::xid8,
  s.snap),
  ` + exists + `
FROM s`
	return r.check[folded]
}

// filtersReadable reports whether the role (privs: its SELECT privilege by
// column) may read every column b filters on: a filter on a column it may
// not read would tell it that column's values.
func filtersReadable(rel *relInfo, b *sbinding, privs []bool) bool {
	for _, f := range b.p.filters {
		i := slices.IndexFunc(rel.Cols, func(c column) bool { return c.Name == f.Column })
		if i < 0 || !privs[i] {
			return false
		}
	}
	return true
}

// output builds the event payloads of one change, per role.
type output struct {
	rel    *relInfo
	ch     *Change
	ev     *evaluation
	record map[string]json.RawMessage
	old    map[string]json.RawMessage
	large  bool
}

func newOutput(rel *relInfo, ch *Change, ev *evaluation) *output {
	o := &output{rel: rel, ch: ch, ev: ev, record: ev.record, old: ev.old}
	size := 0
	for _, v := range ch.New {
		if v != nil {
			size += len(*v)
		}
	}
	o.large = size > maxRecordBytes
	return o
}

// payload renders {"ids":[…],"data":{…}} for one subscriber.
func (o *output) payload(ctx context.Context, e *Engine, m match) json.RawMessage {
	caller := m.sub.caller.Load()
	var b bytes.Buffer
	b.WriteString(`{"ids":`)
	ids, _ := json.Marshal(m.ids)
	b.Write(ids)
	b.WriteString(`,"data":`)
	b.Write(o.data(ctx, e, caller.Role, m))
	b.WriteByte('}')
	return b.Bytes()
}

// visibleSQL reports whether a transaction (by its 32-bit id, widened with
// the current epoch) is visible to a new snapshot.
const visibleSQL = `
WITH s AS (SELECT pg_current_snapshot() AS snap, pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax)
SELECT pg_visible_in_snapshot(
  ((((s.xmax >> 32) - CASE WHEN $1::bigint > (s.xmax & 4294967295) THEN 1 ELSE 0 END) << 32) | $1::bigint)::text::xid8,
  s.snap) FROM s`

// waitVisible waits until a decoded transaction is visible to new
// snapshots (see checkRows), asking as the folded check does.
func (e *Engine) waitVisible(ctx context.Context, xid uint32) {
	if xid == 0 || e.lastVisible.Load() == int64(xid) {
		return
	}
	delay := 100 * time.Microsecond
	for range visibleAttempts {
		var ok bool
		if err := e.admin.QueryRow(ctx, visibleSQL, int64(xid)).Scan(&ok); err != nil {
			e.log.Warn("realtime: transaction visibility", "xid", xid, "err", err)
			return
		}
		if ok {
			e.lastVisible.Store(int64(xid))
			return
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}
