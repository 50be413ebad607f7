package rpc

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fn(name string, params ...Param) *Function {
	return &Function{Schema: "public", Name: name, Params: params, Kind: Scalar}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	a := Param{Name: "a", Type: "integer"}
	aText := Param{Name: "a", Type: "text"}
	b := Param{Name: "b", Type: "integer"}
	bDef := Param{Name: "b", Type: "integer", HasDefault: true}
	unnamedJSON := Param{Type: "json"}
	unnamedText := Param{Type: "text"}
	unnamedTextDef := Param{Type: "text", HasDefault: true}
	f1 := fn("f", a)
	f2 := fn("f", aText)
	f3 := fn("f", a, bDef)
	f4 := fn("f", a, b)
	j := fn("j", unnamedJSON)
	tx := fn("t", unnamedText)
	txDef := fn("t", unnamedTextDef)
	none := fn("n")
	cases := []struct {
		name      string
		cands     []*Function
		keys      []string
		body      Body
		want      *Function
		ambiguous []*Function
		notFound  bool
	}{
		{name: "exact", cands: []*Function{f1}, keys: []string{"a"}, want: f1},
		{name: "default may be omitted", cands: []*Function{f3}, keys: []string{"a"}, want: f3},
		{name: "default may be given", cands: []*Function{f3}, keys: []string{"a", "b"}, want: f3},
		{name: "required missing", cands: []*Function{f4}, keys: []string{"a"}, notFound: true},
		{name: "extra key", cands: []*Function{f1}, keys: []string{"a", "z"}, notFound: true},
		{name: "same names differ by type, listed by type", cands: []*Function{f2, f1}, keys: []string{"a"}, ambiguous: []*Function{f1, f2}},
		// PostgREST prefers no overload: a defaulted extra is as good a match.
		{name: "fewer parameters do not win", cands: []*Function{f3, f1}, keys: []string{"a"}, ambiguous: []*Function{f1, f3}},
		{name: "no args", cands: []*Function{none, f1}, keys: nil, want: none},
		{name: "unnamed parameter by the empty key", cands: []*Function{tx, none}, keys: []string{""}, body: BodyJSON, want: tx},
		{name: "no args or a defaulted unnamed one", cands: []*Function{txDef, none}, body: BodyJSON, ambiguous: []*Function{none, txDef}},
		{name: "no args fit no text body", cands: []*Function{none}, body: BodyText, notFound: true},
		{name: "single unnamed json takes the body", cands: []*Function{j}, keys: []string{"x", "y"}, body: BodyJSON, want: j},
		{name: "single unnamed json not for GET", cands: []*Function{j}, keys: []string{"x"}, body: BodyNone, notFound: true},
		{name: "text body to unnamed text", cands: []*Function{tx}, body: BodyText, want: tx},
		{name: "named match before the body fallback", cands: []*Function{j, f1}, keys: []string{"a"}, body: BodyJSON, want: f1},
		{name: "unknown", cands: nil, keys: []string{"b", "a"}, notFound: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.cands, tc.keys, tc.body)
			var amb *AmbiguousError
			var nf *NotFoundError
			switch {
			case tc.ambiguous != nil:
				if !errors.As(err, &amb) {
					t.Fatalf("want ambiguous, got %v %v", got, err)
				}
				if d := cmp.Diff(tc.ambiguous, amb.Candidates); d != "" {
					t.Fatalf("candidates: %s", d)
				}
			case tc.notFound:
				if !errors.As(err, &nf) {
					t.Fatalf("want not found, got %v %v", got, err)
				}
			default:
				if err != nil || got != tc.want {
					t.Fatalf("got %v err=%v", got, err)
				}
			}
		})
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	f := &Function{Schema: "public", Name: "f", Params: []Param{{Name: "a", Type: "integer"}, {Name: "b", Type: "text", HasDefault: true},
		{Name: "xs", Type: "integer[]", Variadic: true}}}
	from, call, uses := Call(f, []string{"a", "xs"}, "$1")
	if !uses {
		t.Error("named arguments must read the argument object")
	}
	if d := cmp.Diff(`json_to_record($1::json) AS pgrst_args("a" integer, "xs" integer[])`, from); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff(`"public"."f"("a" := pgrst_args."a", VARIADIC "xs" := pgrst_args."xs")`, call); d != "" {
		t.Error(d)
	}
	from, call, uses = Call(&Function{Schema: "s", Name: `we"ird`, Params: []Param{{Type: "json"}}}, nil, "$1")
	if from != "" || call != `"s"."we""ird"($1::json)` || !uses {
		t.Errorf("whole: %q %q %v", from, call, uses)
	}
	// The body goes whole to a single unnamed parameter, whatever the keys.
	from, call, uses = Call(&Function{Schema: "s", Name: "t", Params: []Param{{Type: "text"}}}, []string{""}, "$1")
	if from != "" || call != `"s"."t"($1::text)` || !uses {
		t.Errorf("unnamed by key: %q %q %v", from, call, uses)
	}
	from, call, uses = Call(f, nil, "$1")
	if from != "" || call != `"public"."f"()` || uses {
		t.Errorf("no arguments: %q %q %v", from, call, uses)
	}
	if got := f.Signature(); got != "public.f(a => integer, b => text, xs => integer[])" {
		t.Errorf("signature %q", got)
	}
	if got := fn("u", Param{Type: "text"}).Signature(); got != "public.u( => text)" {
		t.Errorf("unnamed signature %q", got)
	}
}
