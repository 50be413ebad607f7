package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	obj := map[string]string{"Accept": "application/vnd.pgrst.object+json"}
	runScenarios(t, e, []scenario{
		{name: "select columns ordered", call: call{target: "/users?select=username,status&order=username.desc&limit=2"}, status: 200,
			body:    `[{"username":"supabot","status":"ONLINE"},{"username":"kiwicopple","status":"OFFLINE"}]`,
			headers: map[string]string{"Content-Range": "0-1/*", "Content-Type": "application/json; charset=utf-8", "Content-Profile": "public"}},
		{name: "alias and cast", call: call{target: "/channels?select=ident:id::text,slug&id=eq.1"}, status: 200,
			body: `[{"ident":"1","slug":"public"}]`},
		{name: "json path", call: call{target: "/users?select=username,data->foo->bar->>baz,deep:data->foo->bar&username=eq.supabot"}, status: 200,
			body: `[{"username":"supabot","baz":"0","deep":{"baz":0}}]`},
		{name: "json path filter", call: call{target: "/users?select=username&data->foo->bar->>baz=eq.2"}, status: 200,
			body: `[{"username":"awailas"}]`},
		{name: "json arrow filter compares as json", call: call{target: "/users?select=username&data->foo->bar->baz=gt.2"}, status: 200,
			body: `[{"username":"dragarcia"}]`},
		{name: "neq", call: call{target: "/users?select=username&status=neq.ONLINE"}, status: 200, body: `[{"username":"kiwicopple"}]`},
		{name: "gt gte lt lte", call: call{target: "/channels?select=id&id=gte.1&id=lt.2"}, status: 200, body: `[{"id":1}]`},
		{name: "in with quotes", call: call{target: "/users?select=username&username=in.(supabot,\"kiwicopple\")&order=username"}, status: 200,
			body: `[{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "in empty", call: call{target: "/users?select=username&username=in.()"}, status: 200, body: `[]`},
		{name: "not in", call: call{target: "/users?select=username&username=not.in.(supabot,kiwicopple,awailas)"}, status: 200,
			body: `[{"username":"dragarcia"}]`},
		{name: "like star", call: call{target: "/users?select=username&username=like.*bot"}, status: 200, body: `[{"username":"supabot"}]`},
		{name: "ilike percent", call: call{target: "/users?select=username&username=ilike.%25BOT"}, status: 200, body: `[{"username":"supabot"}]`},
		{name: "like any", call: call{target: "/users?select=username&username=like(any).{supa*,kiwi*}&order=username"}, status: 200,
			body: `[{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "like all", call: call{target: "/users?select=username&username=like(all).{*a*,*b*}&order=username"}, status: 200,
			body: `[{"username":"supabot"}]`},
		{name: "match", call: call{target: "/users?select=username&username=match.^supa"}, status: 200, body: `[{"username":"supabot"}]`},
		{name: "imatch", call: call{target: "/users?select=username&username=imatch.^SUPA"}, status: 200, body: `[{"username":"supabot"}]`},
		{name: "is null", call: call{target: "/best_friends?select=id&third_wheel=is.null"}, status: 200, body: `[{"id":2}]`},
		{name: "not is null", call: call{target: "/best_friends?select=id&third_wheel=not.is.null"}, status: 200, body: `[{"id":1}]`},
		{name: "is not_null", call: call{target: "/best_friends?select=id&third_wheel=is.not_null"}, status: 200, body: `[{"id":1}]`},
		{name: "isdistinct", call: call{target: "/best_friends?select=id&third_wheel=isdistinct.awailas"}, status: 200, body: `[{"id":2}]`},
		{name: "fts", call: call{target: "/users?select=username&catchphrase=fts.cat&order=username"}, status: 200,
			body: `[{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "plfts with config", call: call{target: "/users?select=username&catchphrase=plfts(english).fat+rat"}, status: 200,
			body: `[{"username":"dragarcia"}]`},
		{name: "phfts", call: call{target: "/users?select=username&catchphrase=phfts.cat+bat"}, status: 200, body: `[]`},
		{name: "wfts on text column", call: call{target: "/messages?select=id&message=wfts.launch+fire"}, status: 200, body: `[{"id":3}]`},
		{name: "cs array", call: call{target: "/cornercase?select=id&array_column=cs.{a}"}, status: 200, body: `[{"id":1}]`},
		{name: "cd array", call: call{target: "/cornercase?select=id&array_column=cd.{a,b,c}"}, status: 200, body: `[{"id":1}]`},
		{name: "ov array", call: call{target: "/cornercase?select=id&array_column=ov.{e,z}"}, status: 200, body: `[{"id":2}]`},
		{name: "cs jsonb", call: call{target: "/users?select=username&data=cs.{\"foo\":{\"bar\":{\"baz\":1}}}"}, status: 200,
			body: `[{"username":"kiwicopple"}]`},
		{name: "range ops", call: call{target: "/users?select=username&age_range=sl.[30,40)&order=username"}, status: 200, body: `[{"username":"dragarcia"},{"username":"supabot"}]`},
		{name: "range sr", call: call{target: "/users?select=username&age_range=sr.[1,2)&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"dragarcia"},{"username":"kiwicopple"}]`},
		{name: "range nxl nxr adj", call: call{target: "/users?select=username&age_range=adj.[2,25)&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "range nxr", call: call{target: "/users?select=username&age_range=nxr.[1,3)"}, status: 200, body: `[{"username":"supabot"}]`},
		{name: "range nxl", call: call{target: "/users?select=username&age_range=nxl.[21,40)&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"kiwicopple"}]`},
		{name: "or", call: call{target: "/users?select=username&or=(username.eq.supabot,status.eq.OFFLINE)&order=username"}, status: 200,
			body: `[{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "nested and in or", call: call{target: "/users?select=username&or=(username.eq.supabot,and(status.eq.ONLINE,username.like.*a*s))"}, status: 200,
			body: `[{"username":"supabot"},{"username":"awailas"}]`},
		{name: "not.or", call: call{target: "/users?select=username&not.or=(status.eq.ONLINE)"}, status: 200, body: `[{"username":"kiwicopple"}]`},
		{name: "or with range quoted", call: call{target: "/users?select=username&or=(age_range.adj.\"[2,25)\",age_range.cs.\"[29,29]\")&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"dragarcia"},{"username":"kiwicopple"},{"username":"supabot"}]`},
		{name: "or with in list", call: call{target: "/users?select=username&or=(username.in.(awailas,dragarcia))&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"dragarcia"}]`},
		{name: "order nulls", call: call{target: "/best_friends?select=id&order=third_wheel.asc.nullsfirst"}, status: 200, body: `[{"id":2},{"id":1}]`},
		{name: "offset limit", call: call{target: "/users?select=username&order=username&offset=1&limit=2"}, status: 200,
			body: `[{"username":"dragarcia"},{"username":"kiwicopple"}]`, headers: map[string]string{"Content-Range": "1-2/*"}},
		{name: "limit zero", call: call{target: "/users?select=username&limit=0"}, status: 200, body: `[]`,
			headers: map[string]string{"Content-Range": "*/*"}},
		{name: "count exact partial", call: call{target: "/users?select=username&order=username&limit=2", headers: map[string]string{"Prefer": "count=exact"}},
			status: 206, headers: map[string]string{"Content-Range": "0-1/4", "Preference-Applied": "count=exact"}},
		{name: "count exact full", call: call{target: "/users?select=username", headers: map[string]string{"Prefer": "count=exact"}},
			status: 200, headers: map[string]string{"Content-Range": "0-3/4"}},
		{name: "count zero", call: call{target: "/users?username=eq.nobody", headers: map[string]string{"Prefer": "count=exact"}},
			status: 200, raw: strp("[]"), headers: map[string]string{"Content-Range": "*/0"}},
		{name: "head count", call: call{method: http.MethodHead, target: "/users", headers: map[string]string{"Prefer": "count=exact"}},
			status: 200, raw: strp(""), headers: map[string]string{"Content-Range": "0-3/4"}},
		{name: "offset beyond count", call: call{target: "/users?offset=10", headers: map[string]string{"Prefer": "count=exact"}},
			status: 416, body: `{"code":"PGRST103","message":"Requested range not satisfiable","details":"An offset of 10 was requested, but there are only 4 rows.","hint":null}`},
		{name: "negative limit", call: call{target: "/users?limit=-1"}, status: 416,
			body: `{"code":"PGRST103","message":"Requested range not satisfiable","details":"Limit should be greater than or equal to zero.","hint":null}`},
		{name: "range header", call: call{target: "/users?select=username&order=username", headers: map[string]string{"Range": "1-2"}}, status: 200,
			body: `[{"username":"dragarcia"},{"username":"kiwicopple"}]`, headers: map[string]string{"Content-Range": "1-2/*"}},
		{name: "range header inverted", call: call{target: "/users", headers: map[string]string{"Range": "3-1"}}, status: 416},
		{name: "single object", call: call{target: "/users?select=username&username=eq.supabot", headers: obj}, status: 200,
			raw: strp(`{"username":"supabot"}`), headers: map[string]string{"Content-Type": "application/vnd.pgrst.object+json; charset=utf-8"}},
		{name: "single object none", call: call{target: "/users?username=eq.nobody", headers: obj}, status: 406,
			body: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}`},
		{name: "single object many", call: call{target: "/users", headers: obj}, status: 406,
			body: `{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 4 rows","hint":null}`},
		{name: "strip nulls", call: call{target: "/best_friends?select=id,third_wheel&id=eq.2", headers: map[string]string{"Accept": "application/vnd.pgrst.array+json;nulls=stripped"}},
			status: 200, raw: strp(`[{"id":2}]`)},
		{name: "csv", call: call{target: "/users?select=username,age_range,status&order=username&limit=2", headers: map[string]string{"Accept": "text/csv"}},
			status: 200, raw: strp("username,age_range,status\nawailas,\"[25,35)\",ONLINE\ndragarcia,\"[20,30)\",ONLINE"),
			headers: map[string]string{"Content-Type": "text/csv; charset=utf-8"}},
		{name: "csv empty", call: call{target: "/users?username=eq.x", headers: map[string]string{"Accept": "text/csv"}}, status: 200, raw: strp("\n")},
		{name: "bad accept", call: call{target: "/users", headers: map[string]string{"Accept": "image/png"}}, status: 406,
			body: `{"code":"PGRST107","message":"None of these media types are available: image/png","details":null,"hint":null}`},
		{name: "geojson without postgis", call: call{target: "/users", headers: map[string]string{"Accept": "application/geo+json"}}, status: 406,
			body: `{"code":"PGRST107","message":"None of these media types are available: application/geo+json","details":null,"hint":null}`},
		{name: "legacy count", call: call{target: "/users?select=count"}, status: 200, body: `[{"count":4}]`},
		{name: "aggregate count()", call: call{target: "/messages?select=username,count()"}, status: 200, body: `[{"username":"supabot","count":3}]`},
		{name: "aggregate sum cast", call: call{target: "/products?select=total:price.sum()::int"}, status: 200, body: `[{"total":1619}]`},
		{name: "personal schema", call: call{target: "/users", headers: map[string]string{"Accept-Profile": "personal"}}, status: 200,
			body: `[{"username":"personal_bot","status":"ONLINE"}]`, headers: map[string]string{"Content-Profile": "personal"}},
		{name: "bad schema", call: call{target: "/users", headers: map[string]string{"Accept-Profile": "secret"}}, status: 406,
			body: `{"code":"PGRST106","message":"Invalid schema: secret","details":null,"hint":"Only the following schemas are exposed: public, personal"}`},
		{name: "unknown table", call: call{target: "/qqqq"}, status: 404,
			body: `{"code":"PGRST205","message":"Could not find the table 'public.qqqq' in the schema cache","details":null,"hint":null}`},
		{name: "unknown table with a close name", call: call{target: "/user"}, status: 404,
			body: `{"code":"PGRST205","message":"Could not find the table 'public.user' in the schema cache","details":null,"hint":"Perhaps you meant the table 'public.users'"}`},
		{name: "unknown column is PG error", call: call{target: "/users?select=missing_column"}, status: 400,
			body: `{"code":"42703","message":"column users.missing_column does not exist","details":null,"hint":null}`},
		{name: "bad value type", call: call{target: "/channels?id=eq.abc"}, status: 400,
			body: `{"code":"22P02","message":"invalid input syntax for type bigint: \"abc\"","details":null,"hint":null}`},
		{name: "bad operator", call: call{target: "/users?username=foo.bar"}, status: 400},
		{name: "bad order", call: call{target: "/users?order=username.descc"}, status: 400},
		{name: "invalid path", call: call{target: "/users/1"}, status: 404,
			body: `{"code":"PGRST125","message":"Invalid path specified in request URL","details":null,"hint":null}`},
		{name: "quoted column with space", call: call{target: "/cornercase?select=\"column%20whitespace\"&id=eq.1"}, status: 200,
			body: `[{"column whitespace":"foo"}]`},
		{name: "view", call: call{target: "/active_users?select=username&order=username"}, status: 200,
			body: `[{"username":"awailas"},{"username":"dragarcia"},{"username":"supabot"}]`},
		{name: "computed relationship function column", call: call{target: "/channels?select=id,get_messages(id)&id=eq.2"}, status: 200,
			body: `[{"id":2,"get_messages":[{"id":2}]}]`},
		{name: "content location", call: call{target: "/users?select=username&limit=1&order=username"}, status: 200,
			headers: map[string]string{"Content-Location": "/users?limit=1&order=username&select=username"}},
		{name: "explain text", call: call{target: "/users?select=username", headers: map[string]string{"Accept": `application/vnd.pgrst.plan+text; for="application/json"; options=;`}}, status: 200,
			headers: map[string]string{"Content-Type": `application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8`}},
		{name: "options", call: call{method: http.MethodOptions, target: "/users"}, status: 200,
			headers: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"}},
	})
}

func TestPlannedCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MaxRows = 2 })
	for _, mode := range []string{"planned", "estimated"} {
		w := e.do(t, call{target: "/users?select=username", headers: map[string]string{"Prefer": "count=" + mode}})
		cr := w.Header().Get("Content-Range")
		if w.Code != 206 && w.Code != 200 {
			t.Fatalf("%s: status %d %s", mode, w.Code, w.Body.String())
		}
		if len(cr) < 5 || cr[:4] != "0-1/" || cr[4:] == "*" {
			t.Fatalf("%s: Content-Range %q", mode, cr)
		}
		if got := w.Header().Get("Preference-Applied"); got != "count="+mode {
			t.Fatalf("%s: Preference-Applied %q", mode, got)
		}
	}
	// Exact stays exact even past max-rows, and the page is capped.
	w := e.do(t, call{target: "/users?select=username", headers: map[string]string{"Prefer": "count=exact"}})
	if w.Code != 206 || w.Header().Get("Content-Range") != "0-1/4" {
		t.Fatalf("exact: %d %q", w.Code, w.Header().Get("Content-Range"))
	}
}

func TestRootAndPreferences(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	runScenarios(t, e, []scenario{
		{name: "timezone applied", call: call{target: "/rpc/whoami", headers: map[string]string{"Prefer": "timezone=America/Los_Angeles"}}, status: 200,
			headers: map[string]string{"Preference-Applied": "timezone=America/Los_Angeles"}},
		{name: "invalid timezone ignored", call: call{target: "/users?select=count", headers: map[string]string{"Prefer": "timezone=Mars/Base"}}, status: 200,
			body: `[{"count":4}]`, headers: map[string]string{"Preference-Applied": ""}},
		{name: "openapi", call: call{target: "/", headers: map[string]string{"Accept": "application/openapi+json"}, as: asService}, status: 200,
			headers: map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"}},
		{name: "openapi bad accept", call: call{target: "/", headers: map[string]string{"Accept": "text/csv"}, as: asService}, status: 406},
		{name: "root put", call: call{method: "PUT", target: "/", body: `{}`}, status: 405},
		{name: "rpc options", call: call{method: "OPTIONS", target: "/rpc/add_them"}, status: 200, headers: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST"}},
		{name: "view options", call: call{method: "OPTIONS", target: "/active_users"}, status: 200,
			headers: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"}},
	})
	w := e.do(t, call{target: "/", as: asService})
	var doc struct {
		Swagger     string                    `json:"swagger"`
		Paths       map[string]map[string]any `json:"paths"`
		Definitions map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" || doc.Paths["/users"]["get"] == nil || doc.Paths["/rpc/add_them"]["post"] == nil {
		t.Fatalf("openapi paths: %v", doc.Paths)
	}
	if doc.Definitions["users"].Properties["username"]["format"] != "text" {
		t.Fatalf("users definition: %v", doc.Definitions["users"])
	}
	if _, ok := doc.Paths["/late_hidden"]; ok {
		t.Fatal("unexpected path")
	}
}

// The OpenAPI document goes to the secret and service_role keys only, as on
// Supabase since 2026-03 (changelog 42949); REST_OPENAPI_ANON gives it to
// the anon and publishable keys again.
func TestOpenAPISecretKeyOnly(t *testing.T) {
	t.Parallel()
	const forbidden = `{"message":"Access to schema is forbidden","hint":"Accessing the schema via the Data API is only allowed using a secret API key."}`
	viaKey := func(keyRole string, claims caller) caller {
		claims.keyRole = keyRole
		return claims
	}
	e := newEnv(t)
	runScenarios(t, e, []scenario{
		{name: "no key", call: call{target: "/"}, status: 401, raw: strp(forbidden),
			headers: map[string]string{"Content-Type": "application/json"}},
		{name: "anon key", call: call{target: "/", as: viaKey("anon", caller{role: "anon"})}, status: 401, raw: strp(forbidden)},
		{name: "anon key, head", call: call{method: "HEAD", target: "/", as: viaKey("anon", caller{role: "anon"})}, status: 401},
		{name: "anon key and a user's token", call: call{target: "/", as: viaKey("anon", asAlice)}, status: 401, raw: strp(forbidden)},
		{name: "anon key and a service_role token", call: call{target: "/", as: viaKey("anon", asService)}, status: 401, raw: strp(forbidden)},
		{name: "user token without the gateway", call: call{target: "/", as: asAlice}, status: 401, raw: strp(forbidden)},
		{name: "secret key", call: call{target: "/", as: viaKey("service_role", asService)}, status: 200,
			headers: map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"}},
		{name: "secret key and a user's token", call: call{target: "/", as: viaKey("service_role", asAlice)}, status: 200},
		{name: "other methods are still 405", call: call{method: "PUT", target: "/", body: `{}`, as: viaKey("anon", caller{role: "anon"})}, status: 405},
	})
	old := newEnv(t, func(c *Config) { c.OpenAPIAnon = true })
	runScenarios(t, old, []scenario{
		{name: "anon key with REST_OPENAPI_ANON", call: call{target: "/", as: viaKey("anon", caller{role: "anon"})}, status: 200,
			headers: map[string]string{"Content-Type": "application/openapi+json; charset=utf-8"}},
		{name: "no key with REST_OPENAPI_ANON", call: call{target: "/"}, status: 200},
	})
}

func TestPreRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.PreRequest = "public.check_request" })
	ctx := context.Background()
	if _, err := e.db.Admin.Exec(ctx, `CREATE FUNCTION check_request() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('request.headers')::json->>'x-block' = 'yes' THEN
    RAISE SQLSTATE 'PT403' USING MESSAGE = 'blocked';
  END IF;
  PERFORM set_config('response.headers', '[{"X-Pre":"ran"}]', true);
END $$`); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	runScenarios(t, e, []scenario{
		{name: "runs before the request", call: call{target: "/users?select=count"}, status: 200, headers: map[string]string{"X-Pre": "ran"}},
		{name: "can refuse", call: call{target: "/users", headers: map[string]string{"X-Block": "yes"}}, status: 403,
			body: `{"code":"PT403","message":"blocked","details":null,"hint":null}`},
	})
}
