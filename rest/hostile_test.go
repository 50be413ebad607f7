package rest

import (
	"encoding/json"
	"net/url"
	"testing"
)

// TestHostileInput sends injection attempts through every place user text
// reaches SQL. Each gets PostgREST's own answer (a parse error, a missing
// column, table or function, or the text treated as data; never a 5xx),
// and the canary table survives.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	drop := `"; DROP TABLE users; --`
	q := url.QueryEscape
	parseErr := func(details, message string) string {
		b, _ := json.Marshal(map[string]any{"code": "PGRST100", "details": details, "hint": nil, "message": message})
		return string(b)
	}
	pgErr := func(code, message string) string {
		b, _ := json.Marshal(map[string]any{"code": code, "details": nil, "hint": nil, "message": message})
		return string(b)
	}
	users := `[{"username":"supabot","data":{"foo":{"bar":{"baz":0}}},"age_range":"[1,2)","status":"ONLINE","catchphrase":"'cat' 'fat'"},
		{"username":"kiwicopple","data":{"foo":{"bar":{"baz":1}}},"age_range":"[25,35)","status":"OFFLINE","catchphrase":"'bat' 'cat'"},
		{"username":"awailas","data":{"foo":{"bar":{"baz":2}}},"age_range":"[25,35)","status":"ONLINE","catchphrase":"'bat' 'rat'"},
		{"username":"dragarcia","data":{"foo":{"bar":{"baz":3}}},"age_range":"[20,30)","status":"ONLINE","catchphrase":"'fat' 'rat'"}]`
	for _, tt := range []struct {
		target string
		status int
		body   string
	}{
		{"/users?select=" + q(`username::text); DROP TABLE users; --`), 400,
			parseErr(`unexpected ")" expecting "," or end of input`, `"failed to parse select parameter (username::text); DROP TABLE users; --)" (line 1, column 15)`)},
		{"/users?select=" + q(`"`+drop+`"`), 400,
			parseErr(`unexpected ";" expecting "," or end of input`, `"failed to parse select parameter (""; DROP TABLE users; --")" (line 1, column 3)`)},
		{"/users?select=" + q(`data->>'); DROP TABLE users; --`), 400,
			parseErr(`unexpected "'" expecting field name (* or [a..z0..9_$])`, `"failed to parse select parameter (data->>'); DROP TABLE users; --)" (line 1, column 8)`)},
		// A quoted JSON key is a key: no such key, null.
		{"/users?select=" + q(`x:data->`+`"a'b"`), 200, `[{"x":null},{"x":null},{"x":null},{"x":null}]`},
		// Filter values are data.
		{"/users?username=eq." + q(`'; DROP TABLE users; --`), 200, `[]`},
		{"/users?username=in.(" + q(`"a\"); DROP TABLE users; --"`) + ")", 200, `[]`},
		{"/users?order=" + q(`username; DROP TABLE users`), 400,
			parseErr(`unexpected ";" expecting "," or end of input`, `"failed to parse order (username; DROP TABLE users)" (line 1, column 9)`)},
		// A quoted name is one identifier, which no column has.
		{"/users?order=" + q(`"username; DROP TABLE users"`), 400, pgErr("42703", "column users.username; DROP TABLE users does not exist")},
		{"/users?or=(" + q(`username.eq.a) OR 1=1 --`) + ")", 400,
			parseErr(`unexpected " " expecting end of input`, `"failed to parse logic tree ((username.eq.a) OR 1=1 --))" (line 1, column 16)`)},
		{"/users?catchphrase=fts(" + q(`english'); DROP TABLE users; --`) + ").cat", 400,
			parseErr(`unexpected ";" expecting "."`, `"failed to parse filter (fts(english'); DROP TABLE users; --).cat)" (line 1, column 14)`)},
		{"/users?select=" + q(`messages!"x; DROP TABLE users"(*)`), 400,
			`{"code":"PGRST200","details":"Searched for a foreign key relationship between 'users' and 'messages' using the hint 'x; DROP TABLE users' in the schema 'public', but no matches were found.","hint":null,"message":"Could not find a relationship between 'users' and 'messages' in the schema cache"}`},
		// A limit that is not a number is ignored, as PostgREST's readMaybe ignores it.
		{"/users?limit=" + q(`1; DROP TABLE users`), 200, users},
		{"/" + q(`users"; DROP TABLE users; --`), 404,
			pgErr("PGRST205", `Could not find the table 'public.users";+DROP+TABLE+users;+--' in the schema cache`)},
		{"/rpc/" + q(`add_them"(); DROP TABLE users; --`), 404,
			`{"code":"PGRST202","details":"Searched for the function public.add_them\"();+DROP+TABLE+users;+-- without parameters, but no matches were found in the schema cache.","hint":null,"message":"Could not find the function public.add_them\"();+DROP+TABLE+users;+-- without parameters in the schema cache"}`},
		{"/users?" + q(`"a;b"`) + "=eq.1", 400, pgErr("42703", "column users.a;b does not exist")},
		{"/users?select=count()::" + q(`int); DROP TABLE users; --`), 400,
			parseErr(`unexpected ")" expecting "," or end of input`, `"failed to parse select parameter (count()::int); DROP TABLE users; --)" (line 1, column 13)`)},
	} {
		w := e.do(t, call{target: tt.target})
		if w.Code != tt.status || !jsonEqual(t, w.Body.String(), tt.body) {
			t.Errorf("GET %s = %d %s\nwant %d %s", tt.target, w.Code, w.Body.String(), tt.status, tt.body)
		}
	}
	// A value is stored as it is; a key that is no column is refused.
	w := e.do(t, call{method: "POST", target: "/users", body: `{"username":"'); DROP TABLE users; --"}`})
	if w.Code != 201 || w.Body.Len() != 0 {
		t.Errorf("POST an injected value = %d %s, want 201 and no body", w.Code, w.Body.String())
	}
	w = e.do(t, call{method: "POST", target: "/users", body: `{"a\"; DROP TABLE users; --":1}`})
	if want := pgErr("PGRST204", `Could not find the 'a"; DROP TABLE users; --' column of 'users' in the schema cache`); w.Code != 400 || !jsonEqual(t, w.Body.String(), want) {
		t.Errorf("POST an injected key = %d %s, want 400 %s", w.Code, w.Body.String(), want)
	}
	w = e.do(t, call{target: "/users?select=count", as: asService})
	if w.Code != 200 || !jsonEqual(t, w.Body.String(), `[{"count":5}]`) {
		t.Fatalf("users table after attacks: %d %s", w.Code, w.Body.String())
	}
	w = e.do(t, call{target: "/users?select=username&username=eq." + q(`'); DROP TABLE users; --`)})
	if w.Code != 200 || !jsonEqual(t, w.Body.String(), `[{"username":"'); DROP TABLE users; --"}]`) {
		t.Fatalf("the injected value, read back: %d %s", w.Code, w.Body.String())
	}
}
