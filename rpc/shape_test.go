package rpc

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQueryArgs(t *testing.T) {
	t.Parallel()
	a := QueryArgs([][2]string{{"b", "1"}, {"a", "x"}, {"b", "2"}, {"b", "3"}})
	if d := cmp.Diff([]string{"a", "b"}, a.Keys); d != "" {
		t.Error(d)
	}
	if got := string(a.JSON); got != `{"a":"x","b":["1","2","3"]}` {
		t.Errorf("JSON = %s", got)
	}
	if a.Body != BodyNone {
		t.Errorf("body = %v", a.Body)
	}
	if got := string(QueryArgs(nil).JSON); got != `{}` {
		t.Errorf("no arguments: %s", got)
	}
}

func TestFormArgs(t *testing.T) {
	t.Parallel()
	a := FormArgs(url.Values{"z": {"1"}, "a": {"x", "y"}})
	if d := cmp.Diff([]string{"a", "z"}, a.Keys); d != "" {
		t.Error(d)
	}
	if got := string(a.JSON); got != `{"a":["x","y"],"z":"1"}` {
		t.Errorf("JSON = %s", got)
	}
	if a.Body != BodyJSON {
		t.Errorf("body = %v", a.Body)
	}
}

func TestJSONArgs(t *testing.T) {
	t.Parallel()
	keys := []string{"b", "a", "b"}
	a := JSONArgs([]byte(`{"b":1,"a":2}`), keys)
	if d := cmp.Diff([]string{"a", "b"}, a.Keys); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"b", "a", "b"}, keys); d != "" {
		t.Errorf("the caller's keys were changed: %s", d)
	}
	if v, ok := a.Value().([]byte); !ok || string(v) != `{"b":1,"a":2}` {
		t.Errorf("value %#v", a.Value())
	}
	if v := RawArgs(BodyText, []byte("words")).Value(); v != "words" {
		t.Errorf("raw value %#v", v)
	}
}

func TestSource(t *testing.T) {
	t.Parallel()
	from := `json_to_record($1::json) AS pgrst_args("a" integer)`
	call := `"public"."f"("a" := pgrst_args."a")`
	cases := []struct {
		name  string
		f     Function
		shape Shape
		from  string
		want  string
	}{
		{"void", Function{Kind: Void}, ShapeVoid, from, `SELECT "public"."f"("a" := pgrst_args."a") FROM ` + from},
		{"void without arguments", Function{Kind: Void}, ShapeVoid, "", `SELECT "public"."f"("a" := pgrst_args."a")`},
		{"scalar", Function{Kind: Scalar}, ShapeScalar, from, `SELECT "public"."f"("a" := pgrst_args."a") AS pgrst_scalar FROM ` + from},
		{"set of scalars", Function{Kind: Scalar, SetOf: true}, ShapeScalarSet, from,
			`SELECT pgrst_scalar FROM ` + from + `, LATERAL "public"."f"("a" := pgrst_args."a") AS pgrst_scalar`},
		{"set of scalars without arguments", Function{Kind: Scalar, SetOf: true}, ShapeScalarSet, "",
			`SELECT pgrst_scalar FROM LATERAL "public"."f"("a" := pgrst_args."a") AS pgrst_scalar`},
		{"rows", Function{Kind: Composite, SetOf: true}, ShapeRows, from,
			`SELECT pgrst_call.* FROM ` + from + `, LATERAL "public"."f"("a" := pgrst_args."a") AS pgrst_call`},
	}
	for _, tc := range cases {
		if got := tc.f.Shape(); got != tc.shape {
			t.Errorf("%s: shape %v, want %v", tc.name, got, tc.shape)
		}
		if d := cmp.Diff(tc.want, Source(&tc.f, tc.from, call)); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

func TestScalarBody(t *testing.T) {
	t.Parallel()
	html := &Function{Kind: Scalar, MediaType: "text/html", MediaBase: "text"}
	bin := &Function{Kind: Scalar, MediaType: "application/x-bin", MediaBase: "bytea"}
	set := &Function{Kind: Scalar, SetOf: true, MediaType: "text/html"}
	if got := html.Handler(); got != "text/html" {
		t.Errorf("handler %q", got)
	}
	if got := set.Handler(); got != "" {
		t.Errorf("a set is no handler: %q", got)
	}
	for _, tc := range []struct {
		f    *Function
		raw  bool
		want string
	}{
		{html, false, `coalesce(json_agg(_postgrest_t.pgrst_scalar)->0, 'null')`},
		{html, true, `coalesce((array_agg(_postgrest_t.pgrst_scalar))[1]::text, '')`},
		{bin, true, `coalesce(pg_catalog.encode((array_agg(_postgrest_t.pgrst_scalar))[1], 'hex')::text, '')`},
		{set, false, `coalesce(json_agg(_postgrest_t.pgrst_scalar), '[]')`},
	} {
		if d := cmp.Diff(tc.want, ScalarBody(tc.f, tc.raw)); d != "" {
			t.Error(d)
		}
	}
	if got := RowBody(true); got != `coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')` {
		t.Errorf("row body %s", got)
	}
}
