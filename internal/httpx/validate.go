package httpx

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/basaltdev/basalt/internal/lazy"
)

// Violation is the first rule a request body breaks: where (the JSON names
// from the body's root, e.g. ["sortBy", "column"]), which rule of the
// field's `validate` tag ("required", "oneof", "min", …) and its parameter.
// Services render it in their reference server's words.
type Violation struct {
	Path  []string
	Rule  string
	Param string
	// Kind is the field's kind, for rules whose wording depends on it
	// (min on a list counts items, on a number compares values).
	Kind reflect.Kind
	// Message is the field's `msg` tag: the reference's own words for it,
	// where they are not derived from the rule.
	Message string
}

// Field is the JSON name of the field that broke the rule.
func (v *Violation) Field() string { return v.Path[len(v.Path)-1] }

// validate is the one validator every service shares; it caches each body
// type's rules. It is made at the first validation: a process that never
// reads a validated body does not build its tables.
var validate = &lazy.Value[*validator.Validate]{New: func() *validator.Validate {
	return validator.New(validator.WithRequiredStructEnabled())
}}

// Validate checks body (a pointer to a struct) against the `validate` tags
// of its fields (github.com/go-playground/validator's rules), in field
// order, and returns the first violation, or nil when the body is valid.
func Validate(body any) *Violation {
	err := validate.Get().Struct(body)
	var errs validator.ValidationErrors
	if !errors.As(err, &errs) || len(errs) == 0 {
		if err != nil {
			// Not a struct: a programming error, not the client's.
			panic(err)
		}
		return nil
	}
	fe := errs[0]
	v := &Violation{Rule: fe.Tag(), Param: fe.Param(), Kind: fe.Kind()}
	t := reflect.TypeOf(body)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := strings.Split(fe.StructNamespace(), ".")
	if t.Name() != "" {
		names = names[1:] // the body type's own name, which no client sees
	}
	// Walk the Go field names to the field, collecting JSON names; an
	// embedded struct's fields are the body's own in JSON.
	for _, name := range names {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f, _ := t.FieldByName(name)
		if !f.Anonymous {
			v.Path = append(v.Path, jsonName(f))
		}
		v.Message = f.Tag.Get("msg")
		t = f.Type
	}
	return v
}

// jsonName is the name encoding/json gives the field.
func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
		return name
	}
	return f.Name
}
