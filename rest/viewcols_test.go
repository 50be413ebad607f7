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
