package rest

import (
	"encoding/json"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	rep := map[string]string{"Prefer": "return=representation"}
	cases := []struct {
		name  string
		steps []scenario
	}{
		{name: "insert minimal", steps: []scenario{
			{call: call{method: "POST", target: "/channels", body: `{"slug":"new"}`}, status: 201, raw: strp(""),
				headers: map[string]string{"Content-Range": "*/*", "Content-Type": ""}},
			{call: call{target: "/channels?select=id,slug&slug=eq.new"}, status: 200, body: `[{"id":3,"slug":"new"}]`},
		}},
		{name: "insert representation", steps: []scenario{
			{call: call{method: "POST", target: "/channels?select=id,slug", body: `{"slug":"new"}`, headers: rep}, status: 201,
				body: `[{"id":3,"slug":"new"}]`, headers: map[string]string{"Preference-Applied": "return=representation", "Content-Range": "*/*"}},
		}},
		{name: "insert single object accept", steps: []scenario{
			{call: call{method: "POST", target: "/channels?select=slug", body: `{"slug":"new"}`,
				headers: map[string]string{"Prefer": "return=representation", "Accept": "application/vnd.pgrst.object+json"}}, status: 201,
				raw: strp(`{"slug":"new"}`)},
		}},
		{name: "bulk insert single() rolls back", steps: []scenario{
			{call: call{method: "POST", target: "/channels?columns=\"slug\"", body: `[{"slug":"a"},{"slug":"b"}]`,
				headers: map[string]string{"Prefer": "return=representation", "Accept": "application/vnd.pgrst.object+json"}}, status: 406},
			{call: call{target: "/channels?select=slug&order=id"}, status: 200, body: `[{"slug":"public"},{"slug":"random"}]`},
		}},
		{name: "bulk insert with columns and count", steps: []scenario{
			{call: call{method: "POST", target: "/users?columns=\"username\",\"status\"&select=username,status",
				body: `[{"username":"a","status":"ONLINE"},{"username":"b"}]`, headers: map[string]string{"Prefer": "return=representation, count=exact"}},
				status: 201, body: `[{"username":"a","status":"ONLINE"},{"username":"b","status":null}]`,
				headers: map[string]string{"Content-Range": "*/2", "Preference-Applied": "return=representation, count=exact"}},
		}},
		{name: "bulk insert mismatched keys", steps: []scenario{
			{call: call{method: "POST", target: "/users", body: `[{"username":"a"},{"status":"ONLINE"}]`}, status: 400,
				body: `{"code":"PGRST102","message":"All object keys must match","details":null,"hint":null}`},
		}},
		{name: "insert missing=default", steps: []scenario{
			{call: call{method: "POST", target: "/defaults?columns=\"name\",\"n\"&select=name,n", body: `[{"name":"x"},{"n":1}]`,
				headers: map[string]string{"Prefer": "return=representation, missing=default"}}, status: 201,
				body: `[{"name":"x","n":7},{"name":"unnamed","n":1}]`, headers: map[string]string{"Preference-Applied": "missing=default, return=representation"}},
		}},
		{name: "single object with columns and missing=default", steps: []scenario{
			{call: call{method: "POST", target: "/defaults?columns=name,n&select=name,n", body: `{"name":"only"}`,
				headers: map[string]string{"Prefer": "return=representation, missing=default"}}, status: 201,
				body: `[{"name":"only","n":7}]`},
		}},
		{name: "missing=default fills identity and domain defaults", steps: []scenario{
			{call: call{method: "POST", target: `/tickets?columns="id","slug","prio"`, body: `[{"id":100,"prio":1},{"slug":"s"}]`,
				headers: map[string]string{"Prefer": "return=representation, missing=default"}}, status: 201,
				// The reference evaluates the defaults for every row: the
				// first row draws (and drops) 1 from the sequence.
				body: `[{"id":100,"slug":null,"prio":1},{"id":2,"slug":"s","prio":3}]`},
		}},
		{name: "upsert with missing=default fills identity defaults", steps: []scenario{
			{call: call{method: "POST", target: `/tickets`, body: `{"slug":"first"}`}, status: 201},
			{call: call{method: "POST", target: `/tickets?columns="id","slug"`, body: `[{"id":1,"slug":"a"},{"slug":"b"}]`,
				headers: map[string]string{"Prefer": "return=representation, missing=default, resolution=merge-duplicates"}}, status: 201,
				body: `[{"id":1,"slug":"a","prio":3},{"id":3,"slug":"b","prio":3}]`},
		}},
		{name: "insert without missing=default writes null", steps: []scenario{
			{call: call{method: "POST", target: "/defaults?columns=\"name\",\"n\"", body: `[{"name":"x"},{"n":1}]`}, status: 400,
				body: `{"code":"23502","message":"null value in column \"name\" of relation \"defaults\" violates not-null constraint","details":"Failing row contains (2, null, 1).","hint":null}`},
		}},
		{name: "insert empty object uses defaults", steps: []scenario{
			{call: call{method: "POST", target: "/defaults?select=name,n", body: `{}`, headers: rep}, status: 201, body: `[{"name":"unnamed","n":7}]`},
		}},
		{name: "insert empty array", steps: []scenario{
			{call: call{method: "POST", target: "/channels", body: `[]`, headers: rep}, status: 201, raw: strp("[]")},
		}},
		{name: "insert unknown column", steps: []scenario{
			{call: call{method: "POST", target: "/channels", body: `{"nope":1}`}, status: 400,
				body: `{"code":"PGRST204","message":"Could not find the 'nope' column of 'channels' in the schema cache","details":null,"hint":null}`},
		}},
		{name: "insert invalid json", steps: []scenario{
			{call: call{method: "POST", target: "/channels", body: `"x"`}, status: 400,
				body: `{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}`},
		}},
		{name: "duplicate key is 409", steps: []scenario{
			{call: call{method: "POST", target: "/users", body: `{"username":"supabot"}`}, status: 409,
				body: `{"code":"23505","message":"duplicate key value violates unique constraint \"users_pkey\"","details":"Key (username)=(supabot) already exists.","hint":null}`},
		}},
		{name: "fk violation is 409", steps: []scenario{
			{call: call{method: "POST", target: "/messages", body: `{"username":"ghost","channel_id":1}`}, status: 409},
		}},
		{name: "upsert merge updates: 200", steps: []scenario{
			{call: call{method: "POST", target: "/users?select=username,status", body: `{"username":"supabot","status":"OFFLINE"}`,
				headers: map[string]string{"Prefer": "resolution=merge-duplicates, return=representation"}}, status: 200,
				body: `[{"username":"supabot","status":"OFFLINE"}]`, headers: map[string]string{"Preference-Applied": "resolution=merge-duplicates, return=representation"}},
		}},
		{name: "upsert merge inserts: 201", steps: []scenario{
			{call: call{method: "POST", target: "/users?select=username", body: `[{"username":"supabot"},{"username":"newbie"}]`,
				headers: map[string]string{"Prefer": "resolution=merge-duplicates, return=representation"}}, status: 201,
				body: `[{"username":"supabot"},{"username":"newbie"}]`},
		}},
		{name: "upsert ignore duplicates", steps: []scenario{
			{call: call{method: "POST", target: "/users?select=username", body: `[{"username":"supabot"},{"username":"newbie"}]`,
				headers: map[string]string{"Prefer": "resolution=ignore-duplicates, return=representation"}}, status: 201,
				body: `[{"username":"newbie"}]`},
		}},
		{name: "upsert on_conflict without unique constraint", steps: []scenario{
			{call: call{method: "POST", target: "/channels?on_conflict=slug", body: `{"slug":"public"}`,
				headers: map[string]string{"Prefer": "resolution=merge-duplicates"}}, status: 400,
				body: `{"code":"42P10","message":"there is no unique or exclusion constraint matching the ON CONFLICT specification","details":null,"hint":null}`},
		}},
		{name: "insert headers-only location", steps: []scenario{
			{call: call{method: "POST", target: "/channels", body: `{"slug":"loc"}`, headers: map[string]string{"Prefer": "return=headers-only"}},
				status: 201, raw: strp(""), headers: map[string]string{"Location": "/channels?id=eq.3"}},
		}},
		{name: "insert csv", steps: []scenario{
			{call: call{method: "POST", target: "/users?select=username,status", body: "username,status\ncsvuser,NULL\ncsv2,ONLINE",
				headers: map[string]string{"Content-Type": "text/csv", "Prefer": "return=representation"}}, status: 201,
				body: `[{"username":"csvuser","status":null},{"username":"csv2","status":"ONLINE"}]`},
		}},
		{name: "insert with embed in representation", steps: []scenario{
			{call: call{method: "POST", target: "/messages?select=message,channels(slug)", body: `{"message":"hi","username":"supabot","channel_id":2}`, headers: rep},
				status: 201, body: `[{"message":"hi","channels":{"slug":"random"}}]`},
		}},
		{name: "update representation", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?username=eq.supabot&select=username,status", body: `{"status":"OFFLINE"}`, headers: rep},
				status: 200, body: `[{"username":"supabot","status":"OFFLINE"}]`, headers: map[string]string{"Content-Range": "0-0/*"}},
		}},
		{name: "update minimal", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?status=eq.ONLINE", body: `{"status":"OFFLINE"}`, headers: map[string]string{"Prefer": "count=exact"}},
				status: 204, raw: strp(""), headers: map[string]string{"Content-Range": "0-2/3"}},
		}},
		{name: "update without filter refused", steps: []scenario{
			{call: call{method: "PATCH", target: "/users", body: `{"status":"OFFLINE"}`}, status: 400,
				body: `{"code":"21000","message":"UPDATE requires a WHERE clause","details":null,"hint":null}`},
		}},
		{name: "update empty body", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?username=eq.supabot", body: `{}`, headers: rep}, status: 200, raw: strp("[]")},
		}},
		{name: "update max-affected exceeded rolls back", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?status=eq.ONLINE", body: `{"status":"OFFLINE"}`,
				headers: map[string]string{"Prefer": "handling=strict, max-affected=1"}}, status: 400,
				body: `{"code":"PGRST124","message":"Query result exceeds max-affected preference constraint","details":"The query affects 3 rows","hint":null}`},
			{call: call{target: "/users?status=eq.ONLINE&select=count"}, status: 200, body: `[{"count":3}]`},
		}},
		{name: "strict unknown preference", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?username=eq.x", body: `{}`, headers: map[string]string{"Prefer": "handling=strict, foo=bar"}}, status: 400,
				body: `{"code":"PGRST122","message":"Invalid preferences given with handling=strict","details":"Invalid preferences: foo=bar","hint":null}`},
		}},
		{name: "delete representation", steps: []scenario{
			{call: call{method: "DELETE", target: "/best_friends?id=eq.2&select=id", headers: rep}, status: 200, body: `[{"id":2}]`,
				headers: map[string]string{"Content-Range": "*/*"}},
			{call: call{target: "/best_friends?select=id"}, status: 200, body: `[{"id":1}]`},
		}},
		{name: "delete minimal with count", steps: []scenario{
			{call: call{method: "DELETE", target: "/best_friends?id=gt.0", headers: map[string]string{"Prefer": "count=exact"}}, status: 204,
				headers: map[string]string{"Content-Range": "*/2"}},
		}},
		{name: "limited delete with order", steps: []scenario{
			{call: call{method: "DELETE", target: "/collections?order=id.desc&limit=2&parent_id=not.is.null&select=id", headers: rep}, status: 200,
				body: `[{"id":4},{"id":3}]`},
			{call: call{target: "/collections?select=id&order=id"}, status: 200, body: `[{"id":1},{"id":2}]`},
		}},
		{name: "limited update", steps: []scenario{
			{call: call{method: "PATCH", target: "/users?order=username&limit=1&select=username,status", body: `{"status":"OFFLINE"}`, headers: rep}, status: 200,
				body: `[{"username":"awailas","status":"OFFLINE"}]`},
		}},
		{name: "delete without filter refused", steps: []scenario{
			{call: call{method: "DELETE", target: "/best_friends"}, status: 400,
				body: `{"code":"21000","message":"DELETE requires a WHERE clause","details":null,"hint":null}`},
		}},
		{name: "tx rollback preference", steps: []scenario{
			{call: call{method: "DELETE", target: "/best_friends?id=eq.1", headers: map[string]string{"Prefer": "tx=rollback, return=representation"}},
				status: 200, headers: map[string]string{"Preference-Applied": "return=representation, tx=rollback"}},
			{call: call{target: "/best_friends?select=id&order=id"}, status: 200, body: `[{"id":1},{"id":2}]`},
		}},
		{name: "put inserts then updates", steps: []scenario{
			{call: call{method: "PUT", target: "/channels?id=eq.10&select=id,slug", body: `{"id":10,"slug":"ten"}`, headers: rep}, status: 201,
				body: `[{"id":10,"slug":"ten"}]`},
			{call: call{method: "PUT", target: "/channels?id=eq.10&select=id,slug", body: `{"id":10,"slug":"TEN"}`, headers: rep}, status: 200,
				body: `[{"id":10,"slug":"TEN"}]`},
			{call: call{method: "PUT", target: "/channels?id=eq.10", body: `{"id":10,"slug":"x"}`}, status: 204},
		}},
		{name: "put errors", steps: []scenario{
			{call: call{method: "PUT", target: "/channels?slug=eq.x", body: `{"id":1}`}, status: 405,
				body: `{"code":"PGRST105","message":"Filters must include all and only primary key columns with 'eq' operators","details":null,"hint":null}`},
			{call: call{method: "PUT", target: "/channels?id=eq.1", body: `{"id":2}`}, status: 400,
				body: `{"code":"PGRST115","message":"Payload values do not match URL in primary key column(s)","details":null,"hint":null}`},
			{call: call{method: "PUT", target: "/channels?id=eq.1&limit=1", body: `{"id":1}`}, status: 400},
		}},
		{name: "volatile rpc by post", steps: []scenario{
			{call: call{method: "POST", target: "/rpc/bump_channel?select=slug", body: `{"slug_param":"via rpc"}`}, status: 200, body: `{"slug":"via rpc"}`},
		}},
		{name: "content-profile write", steps: []scenario{
			{call: call{method: "POST", target: "/users?select=username", body: `{"username":"p2"}`,
				headers: map[string]string{"Content-Profile": "personal", "Prefer": "return=representation"}}, status: 201,
				body: `[{"username":"p2"}]`, headers: map[string]string{"Content-Profile": "personal"}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			for i, st := range tc.steps {
				st.name = tc.name + "#" + string(rune('0'+i))
				runScenarios(t, e, []scenario{st})
			}
		})
	}
}

func TestWritePlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.do(t, call{method: "POST", target: "/channels", body: `{"slug":"planned"}`,
		headers: map[string]string{"Accept": `application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose;`}})
	if w.Code != 200 || w.Header().Get("Content-Type") != `application/vnd.pgrst.plan+json; for="application/json"; charset=utf-8` {
		t.Fatalf("status %d %q %s", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	if !json.Valid(w.Body.Bytes()) || w.Body.Len() < 20 {
		t.Fatalf("plan body %s", w.Body.String())
	}
	// The cluster preloads pg_stat_statements, as Supabase's does, so a
	// verbose plan carries the statement's query identifier.
	var plans []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &plans); err != nil || len(plans) != 1 || plans[0]["Query Identifier"] == nil {
		t.Errorf("no Query Identifier in the verbose plan %s (%v)", w.Body.String(), err)
	}
	// The plan run is rolled back: nothing was inserted.
	runScenarios(t, e, []scenario{{name: "nothing inserted", call: call{target: "/channels?slug=eq.planned"}, status: 200, raw: strp("[]")}})
}
