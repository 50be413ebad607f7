package rest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/basaltdev/basalt/rpc"
)

// POST/GET /rpc/{fn}: the request's arguments (rpcArguments), the function
// they resolve to (package rpc, against the schema cache), one statement
// that calls it and shapes its result like a read, then execute and
// respond as for tables. Argument binding and result shaping are package
// rpc's; this file only feeds it the request and uses its SQL pieces.

// isRPCArg tells, on GET /rpc, an argument (a=1) from a filter on the
// result (a=eq.1) the way PostgREST does: a plain name whose value does not
// start with an operator, and no reserved or paging parameter.
func isRPCArg(p param) bool {
	return !strings.Contains(p.key, ".") && !reserved[p.key] && !looksLikeFilter(p.value) &&
		p.key != "order" && p.key != "limit" && p.key != "offset" && p.key != "or" && p.key != "and"
}

// rpcArguments reads the function's arguments from the query string (GET,
// HEAD) or the body, by its Content-Type.
func (s *Service) rpcArguments(rc *reqCtx) (*rpc.Args, error) {
	if rc.r.Method != http.MethodPost {
		var pairs [][2]string
		for _, p := range rc.params {
			if isRPCArg(p) {
				pairs = append(pairs, [2]string{p.key, p.value})
			}
		}
		return rpc.QueryArgs(pairs), nil
	}
	data, err := readBody(rc, rc.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	// A single unnamed parameter of type text, xml or bytea takes the raw
	// body for these types, as PostgREST allows; JSON and CSV bodies name
	// the arguments.
	mt := "application/json"
	if ct := rc.r.Header.Get("Content-Type"); ct != "" {
		if m, _, err := mime.ParseMediaType(ct); err == nil {
			mt = m
		}
	}
	switch mt {
	case "text/plain":
		return rpc.RawArgs(rpc.BodyText, data), nil
	case "text/xml":
		return rpc.RawArgs(rpc.BodyXML, data), nil
	case "application/octet-stream":
		return rpc.RawArgs(rpc.BodyBinary, data), nil
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, invalidJSON()
		}
		return rpc.FormArgs(vals), nil
	case "application/json", "text/csv":
	default:
		return nil, pgrstErr(400, "PGRST102", "Content-Type not acceptable: "+mt, nil, nil)
	}
	// No body is a call without arguments; a CSV body's first line
	// is the one object of arguments.
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if mt == "text/csv" {
		p, err := csvPayload(trimmed, rc.cfg.MaxBodyBytes)
		if err != nil {
			return nil, err
		}
		trimmed = []byte("{}")
		if p.first != nil {
			trimmed = p.first
		}
	}
	if !json.Valid(trimmed) {
		return nil, invalidJSON()
	}
	// The keys pick the overload. ?columns= names them instead (the body
	// may then carry more); an array body (bulk call) has none.
	var keys []string
	if trimmed[0] == '{' {
		if cols, ok := first(rc.params, "columns"); ok {
			if keys, err = parseColumns("columns parameter", cols); err != nil {
				return nil, err
			}
		} else {
			keys = objectKeys(trimmed)
		}
	}
	return rpc.JSONArgs(trimmed, keys), nil
}

// serveRPC calls a function. GET and HEAD run it read-only, and so does
// POST unless the function is volatile (PostgREST's rule): a write inside
// then fails with 25006, answered 405.
func (s *Service) serveRPC(rc *reqCtx) (*reply, error) {
	switch rc.r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		rep := newReply(http.StatusOK)
		rep.header.Set("Allow", "OPTIONS,GET,HEAD,POST")
		return rep, nil
	default:
		return nil, pgrstErr(405, "PGRST101", "Cannot use the "+rc.r.Method+" method on RPC", nil, nil)
	}
	// On POST the body holds the arguments, so a plain a=1 in the query
	// string is a filter without an operator: PostgREST's parse error.
	if rc.r.Method == http.MethodPost {
		for _, p := range rc.params {
			if isRPCArg(p) {
				return nil, &parseError{what: "filter", input: p.value, col: 1, msg: "unexpected end of input expecting operator"}
			}
		}
	}
	args, err := s.rpcArguments(rc)
	if err != nil {
		return nil, err
	}
	name := rc.route.fn
	fn, err := rpc.Resolve(rc.cache.Functions[rc.schema+"."+name], args.Keys, args.Body)
	if err != nil {
		return nil, rpcResolveError(rc.cache, rc.schema, name, args, err)
	}
	// The function is found first: what it returns may make it the
	// handler of a media type.
	acc, err := negotiateWith(rc.cfg, rc.r.Header.Get("Accept"), false, fn.Handler())
	if err != nil {
		return nil, err
	}
	if !fn.SetOf && rc.prefs.handling == "strict" && rc.prefs.maxAffected != nil {
		return nil, pgrstErr(400, "PGRST128", "Function must return SETOF or TABLE when max-affected preference is used with handling=strict", nil, nil)
	}
	// The arguments travel as one bound JSON value ($1), which the call
	// unpacks by name; the statement text depends only on the names.
	b := newBuilder(rc)
	from, call, uses := rpc.Call(fn, args.Keys, "$1")
	if uses {
		b.arg(args.Value())
	}
	head := rc.r.Method == http.MethodHead
	readOnly := rc.r.Method != http.MethodPost || !fn.Volatile
	source := rpc.Source(fn, from, call)
	// The result is shaped by what the function returns: nothing, scalars
	// (one value or a set), or rows, which are read like a table's with
	// select, filters, order and paging over the call.
	inner, count, body := "SELECT * FROM pgrst_source", "null", "''"
	var root *node
	switch fn.Shape() {
	case rpc.ShapeVoid:
	case rpc.ShapeScalar, rpc.ShapeScalarSet:
		if fn.SetOf {
			inner += b.limitSQL(&node{}, true)
		}
		body = rpc.ScalarBody(fn, acc.kind == mediaCustom)
		if rc.prefs.count != "" {
			count = "(SELECT pg_catalog.count(*) FROM pgrst_source)"
		}
	default:
		if root, inner, count, err = s.rpcRowsSQL(rc, b, fn); err != nil {
			return nil, err
		}
		body = rpc.RowBody(acc.stripNulls)
		if fn.SetOf {
			body = bodySQL(acc, false)
		}
	}
	if head {
		body = "''"
	}
	st := &statement{sql: mainSQL(source, inner, count, body, "''"), args: b.args, readOnly: readOnly}
	// Only a set can have the wrong number of rows; a scalar result is
	// always exactly one.
	if fn.SetOf {
		st.verify = chain(singleCheck(acc), maxAffectedCheck(rc))
	}
	res, err := s.run(rc, st, acc)
	if err != nil {
		return nil, err
	}
	if res.plan {
		return respondPlan(acc, res), nil
	}
	rep := newReply(http.StatusOK)
	lower := int64(0)
	if root != nil && root.offset != nil {
		lower = *root.offset
	}
	if res.total != nil && res.page < *res.total {
		rep.status = http.StatusPartialContent
	}
	rep.header.Set("Content-Range", contentRange(lower, res.page, res.total))
	s.preferenceApplied(rc, rep.header, false, false)
	s.profileHeader(rc, rep.header)
	// A void function answers 204 unless response.status says otherwise.
	if fn.Kind == rpc.Void {
		rep.status = http.StatusNoContent
	}
	if err := applyResponseGUCs(rep, res); err != nil {
		return nil, err
	}
	if fn.Kind == rpc.Void {
		return rep, nil
	}
	// A bytea media-type handler's result comes back as text in hex form
	// (the pipeline reads text); the client gets the bytes.
	if acc.kind == mediaCustom && fn.MediaBase == "bytea" {
		raw, err := hex.DecodeString(string(res.body))
		if err != nil {
			return nil, fmt.Errorf("rest: decode %s result: %w", fn.MediaType, err)
		}
		res.body = raw
	}
	// A function returning one row or value is one object already: the
	// answer is labelled plain vnd.pgrst.object+json, without nulls=.
	ct := acc.contentType()
	if acc.kind == mediaObject && !fn.SetOf {
		ct = "application/vnd.pgrst.object+json; charset=utf-8"
	}
	return rep.withBody(ct, res.body), nil
}

// rpcRowsSQL reads the rows of a function that returns a table's or a
// composite type's rows as a table read: select, embeds, filters, order and
// paging from the query string. It returns the read tree and the inner and
// count statements over pgrst_source.
func (s *Service) rpcRowsSQL(rc *reqCtx, b *builder, fn *rpc.Function) (root *node, inner, count string, err error) {
	t := rc.cache.Table(fn.RetSchema, fn.RetTable)
	alias := fn.RetTable
	if t == nil {
		t = syntheticTable(fn)
		alias = fn.Name
	}
	sel, _ := first(rc.params, "select")
	items, err := parseSelect(sel)
	if err != nil {
		return nil, "", "", err
	}
	if root, err = s.buildTree(rc.cache, t, alias, quoteIdent(alias), items); err != nil {
		return nil, "", "", err
	}
	var isArg func(param) bool
	if rc.r.Method != http.MethodPost {
		isArg = isRPCArg
	}
	if err := applyQuery(rc, root, isArg); err != nil {
		return nil, "", "", err
	}
	srcFrom := "pgrst_source AS " + quoteIdent(alias)
	if inner, _, err = b.readSQL(root, srcFrom, true); err != nil {
		return nil, "", "", err
	}
	count = "null"
	if rc.prefs.count != "" {
		where, err := b.rootConds(root, true)
		if err != nil {
			return nil, "", "", err
		}
		count = "(SELECT pg_catalog.count(*) FROM " + srcFrom
		if len(where) > 0 {
			count += " WHERE " + strings.Join(where, " AND ")
		}
		count += ")"
	}
	return root, inner, count, nil
}

// syntheticTable describes a RETURNS TABLE(...) / OUT-parameter result, so
// the read machinery can select and filter its columns like a table's. It
// has no keys, so nothing can be embedded from it.
func syntheticTable(fn *rpc.Function) *Table {
	t := &Table{Schema: fn.Schema, Name: fn.Name, cols: map[string]*Column{}}
	for _, c := range fn.OutCols {
		col := &Column{Name: c}
		t.Columns = append(t.Columns, col)
		t.cols[c] = col
	}
	return t
}
