package changes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseParams checks binding parsing against the reference's examples.
func TestParseParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		b       Binding
		want    params
		wantErr string
	}{
		{"schema and table", Binding{Event: "insert", Schema: "public", Table: "t"},
			params{action: "INSERT", schema: "public", table: "t"}, ""},
		{"unknown event means every event", Binding{Event: "TRUNCATE", Schema: "public"},
			params{action: "*", schema: "public", table: "*"}, ""},
		{"table only is in public", Binding{Table: "messages"},
			params{action: "*", schema: "public", table: "messages"}, ""},
		{"blank filter", Binding{Schema: "public", Table: "t", Filter: "   ", HasFilter: true},
			params{action: "*", schema: "public", table: "t"}, ""},
		{"eq", Binding{Schema: "public", Table: "t", Filter: "id=eq.1", HasFilter: true},
			params{action: "*", schema: "public", table: "t", filters: []filter{{"id", "eq", "1", false}}}, ""},
		{"negated, several, quoted", Binding{Schema: "public", Table: "t", Filter: `a=not.eq.1, name=eq."x,\"y\"",b=is.null`, HasFilter: true},
			params{action: "*", schema: "public", table: "t", filters: []filter{
				{"a", "eq", "1", true}, {"name", "eq", `x,"y"`, false}, {"b", "is", "null", false}}}, ""},
		{"in becomes an array literal", Binding{Schema: "public", Table: "t", Filter: `id=in.(1,2,"c,d")`, HasFilter: true},
			params{action: "*", schema: "public", table: "t", filters: []filter{{"id", "in", `{1,2,"c,d"}`, false}}}, ""},
		{"unknown operator", Binding{Schema: "public", Table: "t", Filter: "subject=foo.hey", HasFilter: true},
			params{}, "Error parsing `filter` params: [\"foo\", \"hey\"]"},
		{"not a filter", Binding{Schema: "public", Table: "t", Filter: "undefined", HasFilter: true},
			params{}, "Error parsing `filter` params: [\"undefined\"]"},
		{"empty segment", Binding{Schema: "public", Table: "t", Filter: "a=eq.1,,b=eq.2", HasFilter: true},
			params{}, "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"},
		{"in without parentheses", Binding{Schema: "public", Table: "t", Filter: "id=in.1", HasFilter: true},
			params{}, "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"},
		{"nothing to subscribe to", Binding{Raw: []byte(`{}`)},
			params{}, "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to: {}"},
		{"select on a wildcard", Binding{Schema: "public", Select: []string{"id"}},
			params{}, "Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseParams(tt.b)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("parseParams(%+v) error = %v, want %q", tt.b, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(params{}, filter{})); diff != "" {
				t.Errorf("parseParams(%+v) mismatch (-want +got):\n%s", tt.b, diff)
			}
		})
	}
}

// FuzzParseFilters checks that any filter text parses or fails cleanly, and
// that every parsed operator is a known one.
func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{"id=eq.1", `a=not.in.(1,"2,3")`, "x=like.%a%,y=is.null", ",,", `n=eq."\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := parseFilters(s)
		if err != nil {
			return
		}
		for _, f := range fs {
			if _, ok := filterOps.Get()[f.Op]; !ok {
				t.Fatalf("parsed unknown operator %q from %q", f.Op, s)
			}
		}
	})
}
