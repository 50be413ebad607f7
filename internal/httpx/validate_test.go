package httpx_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/httpx"
)

type inner struct {
	Column string `json:"column" validate:"omitempty,oneof=name size" msg:"bad column"`
}

type base struct {
	Note string `json:"note" validate:"required" msg:"a note is needed"`
}

type named struct {
	base
	ID    string   `json:"id" validate:"required"`
	Names []string `json:"names,omitempty" validate:"required,min=2"`
	Sort  *inner   `json:"sortBy"`
}

// Validate reports the first broken rule in field order, by JSON names
// from the body's root (through embedded and nested structs, named or
// not), with its rule, parameter, kind and the field's msg tag.
func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body any
		want *httpx.Violation
	}{
		{"valid", &named{base: base{Note: "n"}, ID: "x", Names: []string{"a", "b"}, Sort: &inner{}}, nil},
		{"embedded field first", &named{}, &httpx.Violation{Path: []string{"note"}, Rule: "required", Kind: reflect.String,
			Message: "a note is needed"}},
		{"required", &named{base: base{Note: "n"}}, &httpx.Violation{Path: []string{"id"}, Rule: "required", Kind: reflect.String}},
		{"min items", &named{base: base{Note: "n"}, ID: "x", Names: []string{"a"}},
			&httpx.Violation{Path: []string{"names"}, Rule: "min", Param: "2", Kind: reflect.Slice}},
		{"nested through a pointer", &named{base: base{Note: "n"}, ID: "x", Names: []string{"a", "b"}, Sort: &inner{Column: "age"}},
			&httpx.Violation{Path: []string{"sortBy", "column"}, Rule: "oneof", Param: "name size", Kind: reflect.String, Message: "bad column"}},
		{"anonymous struct", &struct {
			Prefix *string `json:"prefix" validate:"required"`
			Sort   *inner  `json:"sortBy"`
		}{Sort: &inner{Column: "age"}}, &httpx.Violation{Path: []string{"prefix"}, Rule: "required", Kind: reflect.Pointer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, httpx.Validate(tt.body)); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
