package rest

import (
	"context"
	"reflect"
	"testing"
)

func TestNodeTokens(t *testing.T) {
	got := nodeTokens(`({QUERY :resname by\ \{who\} :x \<> :y <> :z ""})`)
	want := []nodeToken{{text: "("}, {text: "{"}, {text: "QUERY"}, {text: ":resname"}, {text: "by {who}", escaped: true},
		{text: ":x"}, {text: "<>", escaped: true}, {text: ":y"}, {text: "<>"}, {text: ":z"}, {text: `""`}, {text: "}"}, {text: ")"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens\n got %+v\nwant %+v", got, want)
	}
	if _, err := viewColumnOrigins(`({SELECT})`); err == nil {
		t.Error("a tree that is not a query list was accepted")
	}
}

// TestViewLineage reads real view rules: renamed columns map to their base
// columns, computed ones to nothing, odd names survive the node syntax, and
// keys carry over under the view's names, also from a schema that is not
// exposed.
func TestViewLineage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	lin, err := loadViewLineage(ctx, e.db.Admin, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]map[string]map[string]string{
		"public.message_feed":   {"public.messages": {"id": "message_id", "message": "body", "username": "author", "channel_id": "room"}},
		"public.people":         {"public.users": {"username": "handle", "status": "status"}},
		"public.shouted":        {"public.messages": {"id": "id"}},
		"public.odd names":      {"public.messages": {"id": "the (id)", "username": `by\ {who}`}},
		"public.channel_labels": {"hidden.labels": {"id": "label_id", "channel_id": "channel", "label": "label"}},
	}
	for view, want := range cases {
		if !reflect.DeepEqual(lin[view], want) {
			t.Errorf("%s: got %v, want %v", view, lin[view], want)
		}
	}
	c := e.svc.cache.Load()
	for view, pk := range map[string][]string{"message_feed": {"message_id"}, "people": {"handle"}, "channel_labels": {"label_id"}, "odd names": {"the (id)"}, "shouted": {"id"}} {
		if got := c.Table("public", view).PK; !reflect.DeepEqual(got, pk) {
			t.Errorf("%s primary key: got %v, want %v", view, got, pk)
		}
	}
}

// TestViewLineageOfComplexViews: views built with set operations, CTEs,
// subqueries in the select list and in FROM, window functions, grouping and
// LATERAL all load, and their plain columns still map to their origins.
func TestViewLineageOfComplexViews(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.db.Admin.Exec(ctx, `
CREATE VIEW v_union AS SELECT id, message FROM messages UNION ALL SELECT id, message FROM messages;
CREATE VIEW v_cte AS WITH m AS (SELECT id AS mid, username FROM messages) SELECT mid, username AS who FROM m;
CREATE VIEW v_sublink AS SELECT m.id, (SELECT count(*) FROM messages x WHERE x.username = m.username) AS n,
  m.username AS poster FROM messages m WHERE m.id IN (SELECT id FROM messages);
CREATE VIEW v_window AS SELECT id, row_number() OVER (PARTITION BY username ORDER BY id) AS rn, channel_id AS chan FROM messages;
CREATE VIEW v_group AS SELECT username AS u, count(*) AS total FROM messages GROUP BY username HAVING count(*) > (SELECT 0);
CREATE VIEW v_lateral AS SELECT c.id AS channel, l.id AS last_message
  FROM channels c, LATERAL (SELECT id FROM messages WHERE channel_id = c.id ORDER BY id DESC LIMIT 1) l;
CREATE VIEW v_join AS SELECT m.id AS message, u.username AS author, u.status FROM messages m JOIN users u USING (username);
GRANT SELECT ON v_union, v_cte, v_sublink, v_window, v_group, v_lateral, v_join TO anon, authenticated, service_role;`); err != nil {
		t.Fatal(err)
	}
	lin, err := loadViewLineage(ctx, e.db.Admin, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]map[string]string{
		"public.v_cte":     {"public.messages": {"id": "mid", "username": "who"}},
		"public.v_sublink": {"public.messages": {"id": "id", "username": "poster"}},
		"public.v_window":  {"public.messages": {"id": "id", "channel_id": "chan"}},
		"public.v_group":   {"public.messages": {"username": "u"}},
		"public.v_lateral": {"public.channels": {"id": "channel"}, "public.messages": {"id": "last_message"}},
		"public.v_join":    {"public.messages": {"id": "message"}, "public.users": {"username": "author", "status": "status"}},
	}
	for view, w := range want {
		if !reflect.DeepEqual(lin[view], w) {
			t.Errorf("%s: got %v, want %v", view, lin[view], w)
		}
	}
	// The whole cache still loads, and the join view, which exposes
	// users.username as author, is the target of messages' foreign key.
	if err := e.svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	rec := e.do(t, call{target: "/v_join?select=message,author,messages(id)&message=eq.2&messages.order=id"})
	if rec.Code != 200 || rec.Body.String() != `[{"message":2,"author":"supabot","messages":[{"id": 1}, {"id": 2}, {"id": 3}]}]` {
		t.Errorf("embed through a join view: %d %s", rec.Code, rec.Body.String())
	}
}
