package rest

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/basaltdev/basalt/rpc"
)

// serveRoot answers GET/HEAD / with a Swagger 2.0 description of the
// active schema, as PostgREST's root endpoint does.
func (s *Service) serveRoot(rc *reqCtx) (*reply, error) {
	switch rc.r.Method {
	case http.MethodOptions:
		rep := newReply(http.StatusOK)
		rep.header.Set("Allow", "OPTIONS,GET,HEAD")
		return rep, nil
	case http.MethodGet, http.MethodHead:
	default:
		return nil, pgrstErr(405, "PGRST117", "Unsupported HTTP method: "+rc.r.Method, nil, nil)
	}
	// openapi-mode=disabled hides the schema from anonymous probing
	// without turning the API off; PostgREST answers PGRST126.
	if rc.cfg.OpenAPIMode == "disabled" {
		return nil, pgrstErr(404, "PGRST126", "Root endpoint metadata is disabled", nil, nil)
	}
	acc, err := negotiate(rc.cfg, rc.r.Header.Get("Accept"), true)
	if err != nil {
		return nil, err
	}
	visible, err := s.visibleObjects(rc)
	if err != nil {
		return nil, err
	}
	// The document is built per request: it depends on the caller's
	// privileges (follow-privileges), so it cannot be cached per snapshot.
	doc := s.openAPI(rc, visible)
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	rep := newReply(http.StatusOK)
	s.profileHeader(rc, rep.header)
	return rep.withBody(acc.contentType(), body), nil
}

// visibleObjects lists the tables and functions the caller's role may
// use (follow-privileges), checked in one query as that role.
func (s *Service) visibleObjects(rc *reqCtx) (map[string]bool, error) {
	vis := map[string]bool{}
	// ignore-privileges lists everything in the schema cache, with no
	// round trip to the database.
	if rc.cfg.OpenAPIMode == "ignore-privileges" {
		for k := range rc.cache.Tables {
			vis[k] = true
		}
		for k := range rc.cache.Functions {
			vis["rpc:"+k] = true
		}
		return vis, nil
	}
	var tables, fns []string
	for k, t := range rc.cache.Tables {
		if t.Schema == rc.schema {
			tables = append(tables, k)
		}
	}
	for k, list := range rc.cache.Functions {
		if list[0].Schema == rc.schema {
			fns = append(fns, k)
		}
	}
	// Sorted so that the statement's arguments, and so its text, do not
	// depend on map order.
	sort.Strings(tables)
	sort.Strings(fns)
	tj, _ := json.Marshal(tables)
	fj, _ := json.Marshal(fns)
	b := &builder{}
	t1, f1 := b.arg(string(tj)), b.arg(string(fj))
	// Privileges are checked by oid: a name such as "odd names" would not
	// parse as a regclass.
	src := "SELECT coalesce(json_agg(x), '[]') AS x FROM (SELECT t AS x FROM json_array_elements_text(" + t1 + "::json) t " +
		"JOIN pg_class c ON true JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname || '.' || c.relname = t " +
		"WHERE has_any_column_privilege(c.oid, 'SELECT') OR has_table_privilege(c.oid, 'INSERT,UPDATE,DELETE') " +
		"UNION ALL SELECT 'rpc:' || f FROM json_array_elements_text(" + f1 + "::json) f " +
		"WHERE EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace " +
		"WHERE n.nspname || '.' || p.proname = f AND has_function_privilege(p.oid, 'EXECUTE'))) s"
	// Run through the same statement shape and pipeline as a read, so the
	// check happens as the caller's role with its settings.
	st := &statement{sql: mainSQL(src, "SELECT * FROM pgrst_source", "null", "coalesce(json_agg(_postgrest_t.x)->0, '[]')", "''"),
		args: b.args, readOnly: true}
	res, err := s.run(rc, st, accept{}) // a JSON answer, never a plan
	if err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal(res.body, &names); err != nil {
		return nil, err
	}
	for _, n := range names {
		vis[n] = true
	}
	return vis, nil
}

// pgToSwagger maps Postgres types with a Swagger counterpart to {type,
// format}; every other type is a string whose format names the Postgres
// type, as in PostgREST's document.
var pgToSwagger = map[string][2]string{
	"integer": {"integer", "integer"}, "smallint": {"integer", "smallint"}, "bigint": {"integer", "bigint"},
	"numeric": {"number", "numeric"}, "real": {"number", "real"}, "double precision": {"number", "double precision"},
	"boolean": {"boolean", "boolean"}, "json": {"", "json"}, "jsonb": {"", "jsonb"},
}

// swaggerType describes one column or parameter type. Modifiers such as
// varchar(20) are dropped for the lookup but kept in format.
func swaggerType(pgType string) map[string]any {
	base := pgType
	if i := strings.IndexByte(base, '('); i > 0 {
		base = base[:i]
	}
	if strings.HasSuffix(pgType, "[]") {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "format": pgType}
	}
	if t, ok := pgToSwagger[base]; ok {
		m := map[string]any{"format": pgType}
		if t[0] != "" {
			m["type"] = t[0]
		}
		return m
	}
	return map[string]any{"type": "string", "format": pgType}
}

// openAPI builds the Swagger 2.0 document PostgREST serves at the root:
// one definition and path per visible table or view, one path per visible
// function, with the shared parameters referenced by name. Its shape
// follows PostgREST's OpenAPI module, since clients generate code from it.
func (s *Service) openAPI(rc *reqCtx, visible map[string]bool) map[string]any {
	paths := map[string]any{"/": map[string]any{"get": map[string]any{"produces": []string{"application/openapi+json", "application/json"},
		"responses": map[string]any{"200": map[string]any{"description": "OK"}}, "summary": "OpenAPI description (this document)", "tags": []string{"Introspection"}}}}
	defs := map[string]any{}
	ok := map[string]any{"200": map[string]any{"description": "OK"}}
	for k, t := range rc.cache.Tables {
		if t.Schema != rc.schema || !visible[k] {
			continue
		}
		props := map[string]any{}
		var required []string
		for _, c := range t.Columns {
			p := swaggerType(c.Type)
			if c.Default != "" {
				p["default"] = c.Default
			}
			for _, pk := range t.PK {
				if pk == c.Name {
					p["description"] = "Note:\nThis is a Primary Key.<pk/>"
				}
			}
			props[c.Name] = p
			if !c.Nullable && c.Default == "" {
				required = append(required, c.Name)
			}
		}
		def := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			def["required"] = required
		}
		if t.Description != "" {
			def["description"] = t.Description
		}
		defs[t.Name] = def
		ops := map[string]any{"get": map[string]any{"tags": []string{t.Name}, "responses": ok,
			"parameters": []any{ref("select"), ref("order"), ref("range"), ref("rangeUnit"), ref("offset"), ref("limit"), ref("preferCount")}}}
		if t.Insertable {
			ops["post"] = map[string]any{"tags": []string{t.Name}, "responses": map[string]any{"201": map[string]any{"description": "Created"}},
				"parameters": []any{map[string]any{"$ref": "#/parameters/body." + t.Name}, ref("select"), ref("preferPost")}}
		}
		if t.Updatable {
			ops["patch"] = map[string]any{"tags": []string{t.Name}, "responses": map[string]any{"204": map[string]any{"description": "No Content"}},
				"parameters": []any{map[string]any{"$ref": "#/parameters/body." + t.Name}, ref("preferReturn")}}
		}
		if t.Deletable {
			ops["delete"] = map[string]any{"tags": []string{t.Name}, "responses": map[string]any{"204": map[string]any{"description": "No Content"}},
				"parameters": []any{ref("preferReturn")}}
		}
		paths["/"+t.Name] = ops
	}
	for k, list := range rc.cache.Functions {
		f := list[0]
		if f.Schema != rc.schema || !visible["rpc:"+k] {
			continue
		}
		props := map[string]any{}
		var required []string
		for _, p := range f.Params {
			if p.Name == "" {
				continue
			}
			props[p.Name] = swaggerType(p.Type)
			if !p.HasDefault {
				required = append(required, p.Name)
			}
		}
		schema := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			schema["required"] = required
		}
		post := map[string]any{"tags": []string{"(rpc) " + f.Name}, "produces": []string{"application/json", "application/vnd.pgrst.object+json"},
			"responses": ok, "parameters": []any{map[string]any{"in": "body", "name": "args", "required": true, "schema": schema}, ref("preferParams")}}
		// A volatile function returning nothing is called for its
		// effect, which a GET (run read-only) cannot have: POST only.
		ops := map[string]any{"post": post}
		if f.Kind != rpc.Void || !f.Volatile {
			ops["get"] = map[string]any{"tags": []string{"(rpc) " + f.Name}, "responses": ok}
		}
		paths["/rpc/"+f.Name] = ops
	}
	host := ""
	schemes := []string{"http"}
	if rc.r.Host != "" {
		host = rc.r.Host
	}
	return map[string]any{
		"swagger":     "2.0",
		"info":        map[string]any{"title": "standard public schema", "description": "", "version": "14.1"},
		"host":        host,
		"basePath":    "/",
		"schemes":     schemes,
		"consumes":    []string{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"},
		"produces":    []string{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"},
		"paths":       paths,
		"definitions": defs,
		"parameters":  sharedParameters(),
		"externalDocs": map[string]any{"description": "PostgREST Documentation",
			"url": "https://postgrest.org/en/v14/references/api.html"},
	}
}

// ref points at one of sharedParameters.
func ref(name string) map[string]any { return map[string]any{"$ref": "#/parameters/" + name} }

// sharedParameters are the query and header parameters every path may
// reference (select, order, Range, Prefer …).
func sharedParameters() map[string]any {
	q := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "description": desc, "required": false, "in": "query", "type": "string"}
	}
	h := func(name, desc string, enum ...string) map[string]any {
		m := map[string]any{"name": name, "description": desc, "required": false, "in": "header", "type": "string"}
		if len(enum) > 0 {
			m["enum"] = enum
		}
		return m
	}
	return map[string]any{
		"select":       q("select", "Filtering Columns"),
		"order":        q("order", "Ordering"),
		"offset":       q("offset", "Limiting and Pagination"),
		"limit":        q("limit", "Limiting and Pagination"),
		"on_conflict":  q("on_conflict", "On Conflict"),
		"range":        h("Range", "Limiting and Pagination"),
		"rangeUnit":    map[string]any{"name": "Range-Unit", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string", "default": "items"},
		"preferParams": h("Prefer", "Preference", "params=single-object"),
		"preferReturn": h("Prefer", "Preference", "return=representation", "return=minimal", "return=none"),
		"preferCount":  h("Prefer", "Preference", "count=none"),
		"preferPost":   h("Prefer", "Preference", "return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"),
	}
}
