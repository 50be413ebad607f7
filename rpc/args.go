package rpc

import (
	"encoding/json"
	"net/url"
	"slices"
)

// Body is how the request carries its arguments, which decides the
// single-unnamed-parameter fallback.
type Body int

// Argument carriers.
const (
	BodyNone   Body = iota // GET/HEAD query arguments
	BodyJSON               // application/json object
	BodyText               // text/plain
	BodyXML                // text/xml
	BodyBinary             // application/octet-stream
)

// Args is what a request carries for the function.
type Args struct {
	// Keys are the distinct argument names, sorted.
	Keys []string
	// JSON is a JSON object of the named arguments; for a text, xml or
	// binary body it is that body as sent.
	JSON []byte
	Body Body
}

// QueryArgs binds arguments given as query parameters (GET and HEAD): a
// name given once is a string, a name repeated is the array of its values.
func QueryArgs(pairs [][2]string) *Args {
	a := &Args{Body: BodyNone}
	obj := map[string]any{}
	for _, p := range pairs {
		k, v := p[0], p[1]
		switch prev := obj[k].(type) {
		case nil:
			obj[k] = v
			a.Keys = append(a.Keys, k)
		case string:
			obj[k] = []string{prev, v}
		case []string:
			obj[k] = append(prev, v)
		}
	}
	a.JSON, _ = json.Marshal(obj)
	slices.Sort(a.Keys)
	return a
}

// FormArgs binds an application/x-www-form-urlencoded body, with the same
// single value / repeated value rule as QueryArgs.
func FormArgs(vals url.Values) *Args {
	a := &Args{Body: BodyJSON}
	obj := make(map[string]any, len(vals))
	for k, v := range vals {
		if len(v) == 1 {
			obj[k] = v[0]
		} else {
			obj[k] = v
		}
		a.Keys = append(a.Keys, k)
	}
	a.JSON, _ = json.Marshal(obj)
	slices.Sort(a.Keys)
	return a
}

// JSONArgs binds a JSON body whose argument names are keys (the object's
// keys, or those of the columns parameter; none for an array).
func JSONArgs(body []byte, keys []string) *Args {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return &Args{Body: BodyJSON, JSON: body, Keys: slices.Compact(keys)}
}

// RawArgs binds a text, xml or binary body, which only a function with a
// single unnamed parameter of that type takes.
func RawArgs(body Body, data []byte) *Args {
	return &Args{Body: body, JSON: data}
}

// Value is the statement parameter that carries the arguments: JSON as
// bytes (no copy of a large body), any other body as text.
func (a *Args) Value() any {
	if a.Body == BodyJSON || a.Body == BodyNone {
		return a.JSON
	}
	return string(a.JSON)
}
