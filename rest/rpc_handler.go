package rest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/basaltdev/basalt/rpc"
)

// rpcArgs is what the request carries for the function.
type rpcArgs struct {
	keys []string
	json []byte // JSON object of named args, or the raw body for "whole"
	body rpc.Body
}

func isRPCArg(p param) bool {
	return !strings.Contains(p.key, ".") && !reserved[p.key] && !looksLikeFilter(p.value) &&
		p.key != "order" && p.key != "limit" && p.key != "offset" && p.key != "or" && p.key != "and"
}

func (s *Service) rpcArguments(rc *reqCtx) (*rpcArgs, error) {
	a := &rpcArgs{}
	if rc.r.Method != http.MethodPost {
		obj := map[string]any{}
		for _, p := range rc.params {
			if !isRPCArg(p) {
				continue
			}
			switch prev := obj[p.key].(type) {
			case nil:
				obj[p.key] = p.value
				a.keys = append(a.keys, p.key)
			case string:
				obj[p.key] = []string{prev, p.value}
			case []string:
				obj[p.key] = append(prev, p.value)
			}
		}
		a.json, _ = json.Marshal(obj)
		return a, nil
	}
	data, err := readBody(rc, rc.cfg.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	mt := "application/json"
	if ct := rc.r.Header.Get("Content-Type"); ct != "" {
		if m, _, err := mime.ParseMediaType(ct); err == nil {
			mt = m
		}
	}
	switch mt {
	case "text/plain":
		a.body, a.json = rpc.BodyText, data
		return a, nil
	case "text/xml":
		a.body, a.json = rpc.BodyXML, data
		return a, nil
	case "application/octet-stream":
		a.body, a.json = rpc.BodyBinary, data
		return a, nil
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, invalidJSON()
		}
		obj := map[string]any{}
		for k, v := range vals {
			if len(v) == 1 {
				obj[k] = v[0]
			} else {
				obj[k] = v
			}
			a.keys = append(a.keys, k)
		}
		a.body = rpc.BodyJSON
		a.json, _ = json.Marshal(obj)
		return a, nil
	case "application/json", "text/csv":
	default:
		return nil, pgrstErr(400, "PGRST102", "Content-Type not acceptable: "+mt, nil, nil)
	}
	a.body = rpc.BodyJSON
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
	a.json = trimmed
	if !json.Valid(trimmed) {
		return nil, invalidJSON()
	}
	if trimmed[0] == '{' {
		if cols, ok := first(rc.params, "columns"); ok {
			ks, err := parseColumns("columns parameter", cols)
			if err != nil {
				return nil, err
			}
			a.keys = ks
		} else {
			a.keys = objectKeys(trimmed)
		}
	}
	sort.Strings(a.keys)
	a.keys = slices.Compact(a.keys)
	return a, nil
}

func (s *Service) serveRPC(rc *reqCtx) error {
	switch rc.r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		rc.w.Header().Set("Allow", "OPTIONS,GET,HEAD,POST")
		write(rc, http.StatusOK, "", nil)
		return nil
	default:
		return pgrstErr(405, "PGRST101", "Cannot use the "+rc.r.Method+" method on RPC", nil, nil)
	}
	if rc.r.Method == http.MethodPost {
		for _, p := range rc.params {
			if isRPCArg(p) {
				return &parseError{what: "filter", input: p.value, col: 1, msg: "unexpected end of input expecting operator"}
			}
		}
	}
	args, err := s.rpcArguments(rc)
	if err != nil {
		return err
	}
	name := rc.route.fn
	fn, whole, err := rpc.Resolve(rc.cache.Functions[rc.schema+"."+name], args.keys, args.body)
	if err != nil {
		return rpcResolveError(rc.cache, rc.schema, name, args, err)
	}
	// The function is found first: what it returns may make it the
	// handler of a media type.
	handler := ""
	if fn.MediaType != "" && fn.Kind == rpc.Scalar && !fn.SetOf {
		handler = fn.MediaType
	}
	acc, err := negotiateWith(rc.cfg, rc.r.Header.Get("Accept"), false, handler)
	if err != nil {
		return err
	}
	if !fn.SetOf && rc.prefs.handling == "strict" && rc.prefs.maxAffected != nil {
		return pgrstErr(400, "PGRST128", "Function must return SETOF or TABLE when max-affected preference is used with handling=strict", nil, nil)
	}
	b := newBuilder(rc)
	// The argument object is bound only when the call reads it: Postgres
	// refuses parameters a statement does not use.
	ref := "$1"
	from, call := rpc.Call(fn, args.keys, ref, whole)
	if whole {
		from = ""
	}
	if whole || from != "" {
		if args.body == rpc.BodyJSON || args.body == rpc.BodyNone {
			b.arg(args.json) // no copy of a large body
		} else {
			b.arg(string(args.json))
		}
	}
	fromClause := ""
	if from != "" {
		fromClause = " FROM " + from
	}
	head := rc.r.Method == http.MethodHead
	readOnly := rc.r.Method != http.MethodPost || !fn.Volatile
	var source, inner, count, body string
	count = "null"
	var root *node
	switch {
	case fn.Kind == rpc.Void:
		source = "SELECT " + call + fromClause
		inner, body = "SELECT * FROM pgrst_source", "''"
	case fn.Kind == rpc.Scalar && !fn.SetOf:
		source = "SELECT " + call + " AS pgrst_scalar" + fromClause
		inner = "SELECT * FROM pgrst_source"
		body = "coalesce(json_agg(_postgrest_t.pgrst_scalar)->0, 'null')"
		if acc.kind == mediaCustom {
			// The handler's value as it is: text as text, bytes as bytes
			// (sent as hex and decoded below, whatever bytea_output says).
			v := "(array_agg(_postgrest_t.pgrst_scalar))[1]"
			if fn.MediaBase == "bytea" {
				v = "pg_catalog.encode(" + v + ", 'hex')"
			}
			body = "coalesce(" + v + "::text, '')"
		}
		if rc.prefs.count != "" {
			count = "(SELECT pg_catalog.count(*) FROM pgrst_source)"
		}
	case fn.Kind == rpc.Scalar:
		sep := " FROM "
		if from != "" {
			sep = " FROM " + from + ", "
		}
		source = "SELECT pgrst_scalar" + sep + "LATERAL " + call + " AS pgrst_scalar"
		inner = "SELECT * FROM pgrst_source" + b.limitSQL(&node{}, true)
		body = "coalesce(json_agg(_postgrest_t.pgrst_scalar), '[]')"
		if rc.prefs.count != "" {
			count = "(SELECT pg_catalog.count(*) FROM pgrst_source)"
		}
	default:
		sep := " FROM "
		if from != "" {
			sep = " FROM " + from + ", "
		}
		source = "SELECT pgrst_call.*" + sep + "LATERAL " + call + " AS pgrst_call"
		t := rc.cache.Table(fn.RetSchema, fn.RetTable)
		alias := fn.RetTable
		if t == nil {
			t = syntheticTable(fn)
			alias = fn.Name
		}
		sel, _ := first(rc.params, "select")
		items, err := parseSelect(sel)
		if err != nil {
			return err
		}
		if root, err = s.buildTree(rc.cache, t, alias, quoteIdent(alias), items); err != nil {
			return err
		}
		var isArg func(param) bool
		if rc.r.Method != http.MethodPost {
			isArg = isRPCArg
		}
		if err := applyParams(root, rc.params, isArg); err != nil {
			return err
		}
		if err := pageBounds(rc, root); err != nil {
			return err
		}
		srcFrom := "pgrst_source AS " + quoteIdent(alias)
		if inner, _, err = b.readSQL(root, srcFrom, true); err != nil {
			return err
		}
		if rc.prefs.count != "" {
			where, err := b.rootConds(root, true)
			if err != nil {
				return err
			}
			count = "(SELECT pg_catalog.count(*) FROM " + srcFrom
			if len(where) > 0 {
				count += " WHERE " + strings.Join(where, " AND ")
			}
			count += ")"
		}
		if fn.SetOf {
			body = bodySQL(acc, false)
		} else {
			body = "coalesce(json_agg(_postgrest_t)->0, 'null')"
			if acc.stripNulls {
				body = "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')"
			}
		}
	}
	if head {
		body = "''"
	}
	st := &statement{sql: mainSQL(source, inner, count, body, "''"), args: b.args, readOnly: readOnly}
	if fn.SetOf {
		st.verify = chain(singleCheck(acc), maxAffectedCheck(rc))
	}
	if acc.kind == mediaPlan {
		return s.explain(rc, st, acc)
	}
	res, err := s.execute(rc, st)
	if err != nil {
		return err
	}
	h := rc.w.Header()
	status := http.StatusOK
	lower := int64(0)
	if root != nil && root.offset != nil {
		lower = *root.offset
	}
	if res.total != nil && res.page < *res.total {
		status = http.StatusPartialContent
	}
	h.Set("Content-Range", contentRange(lower, res.page, res.total))
	s.preferenceApplied(rc, false, false)
	s.profileHeader(rc)
	if fn.Kind == rpc.Void {
		status = http.StatusNoContent
	}
	if err := applyResponseGUCs(h, res, &status); err != nil {
		return err
	}
	if fn.Kind == rpc.Void {
		write(rc, status, "", nil)
		return nil
	}
	if acc.kind == mediaCustom && fn.MediaBase == "bytea" {
		raw, err := hex.DecodeString(string(res.body))
		if err != nil {
			return fmt.Errorf("rest: decode %s result: %w", fn.MediaType, err)
		}
		res.body = raw
	}
	ct := acc.contentType()
	if acc.kind == mediaObject && !fn.SetOf {
		ct = "application/vnd.pgrst.object+json; charset=utf-8"
	}
	write(rc, status, ct, res.body)
	return nil
}

// syntheticTable describes a RETURNS TABLE(...) / OUT-parameter result.
func syntheticTable(fn *rpc.Function) *Table {
	t := &Table{Schema: fn.Schema, Name: fn.Name, cols: map[string]*Column{}}
	for _, c := range fn.OutCols {
		col := &Column{Name: c}
		t.Columns = append(t.Columns, col)
		t.cols[c] = col
	}
	return t
}

// rpcHint suggests a function: another name when none is called name, or
// the closest parameter list among its overloads.
func rpcHint(c *Cache, schema, name string, keys []string) any {
	overloads := c.Functions[schema+"."+name]
	var best string
	if len(overloads) == 0 {
		var names []string
		for _, list := range c.Functions {
			if list[0].Schema == schema {
				names = append(names, list[0].Name)
			}
		}
		sort.Strings(names)
		best = fuzzyBest(name, names)
	} else {
		lists := make([]string, 0, len(overloads))
		for _, f := range overloads {
			ps := make([]string, 0, len(f.Params))
			for _, p := range f.Params {
				ps = append(ps, p.Name)
			}
			sort.Strings(ps)
			lists = append(lists, "("+strings.Join(ps, ", ")+")")
		}
		if b := fuzzyBest("("+strings.Join(keys, ", ")+")", lists); b != "" {
			best = name + b
		}
	}
	if best == "" {
		return nil
	}
	return "Perhaps you meant to call the function " + schema + "." + best
}

// maxFuncArgs is PostgreSQL's FUNC_MAX_ARGS.
const maxFuncArgs = 100

func rpcResolveError(cache *Cache, schema, name string, a *rpcArgs, err error) error {
	var amb *rpc.AmbiguousError
	if errors.As(err, &amb) {
		sigs := make([]string, len(amb.Candidates))
		for i, f := range amb.Candidates {
			sigs[i] = f.Signature()
		}
		return pgrstErr(300, "PGRST203", "Could not choose the best candidate function between: "+strings.Join(sigs, ", "),
			nil, "Try renaming the parameters or the function itself in the database so function overloading can be resolved")
	}
	keys := a.keys
	if !sort.StringsAreSorted(keys) {
		keys = append([]string(nil), keys...)
		sort.Strings(keys)
	}
	// No function takes more than maxFuncArgs parameters: past that the
	// names are cut short, so a body of many keys is not echoed whole
	// (twice) in the answer.
	if len(keys) > maxFuncArgs {
		keys = append(keys[:maxFuncArgs:maxFuncArgs], "…")
	}
	qn := schema + "." + name
	prms := " without parameters"
	if len(keys) > 0 {
		prms = " with parameter" + plural(len(keys)) + " " + strings.Join(keys, ", ")
	}
	msg := "Could not find the function " + qn
	details := "Searched for the function " + qn
	switch a.body {
	case rpc.BodyText:
		details += " with a single unnamed text parameter"
	case rpc.BodyXML:
		details += " with a single unnamed xml parameter"
	case rpc.BodyBinary:
		details += " with a single unnamed bytea parameter"
	case rpc.BodyJSON:
		details += prms + " or with a single unnamed json/jsonb parameter"
	default:
		details += prms
	}
	switch {
	case a.body == rpc.BodyText || a.body == rpc.BodyXML || a.body == rpc.BodyBinary:
	case len(keys) == 0:
		msg += " without parameters"
	default:
		msg += "(" + strings.Join(keys, ", ") + ")"
	}
	msg += " in the schema cache"
	details += ", but no matches were found in the schema cache."
	var hint any
	// Nothing is close to a key list longer than any function's.
	if a.body != rpc.BodyText && a.body != rpc.BodyXML && a.body != rpc.BodyBinary && len(a.keys) <= maxFuncArgs {
		hint = rpcHint(cache, schema, name, keys)
	}
	return pgrstErr(404, "PGRST202", msg, details, hint)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
