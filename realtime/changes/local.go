package changes

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/lazy"
)

// Most changes need no query to be evaluated. pgoutput sends every value
// as its type's text output; for the common column types that text
// already says what the filters and to_jsonb would compute, so the engine
// renders the records and runs the filters itself, byte for byte as
// PostgreSQL does (local_test.go compares the two on every type and edge
// case). A change with a value or filter outside what is handled here goes
// to PostgreSQL as before (evaluate).

// valueKind is how a column's text output maps to JSON and compares.
type valueKind uint8

const (
	kindSQL         valueKind = iota // only PostgreSQL knows
	kindInt                          // int2, int4, int8: decimal digits, the same in JSON
	kindFloat                        // float4, float8, numeric: JSON number when finite
	kindText                         // text, varchar, enums: JSON string; equal when the bytes are (deterministic collation)
	kindUUID                         // JSON string
	kindBool                         // t or f
	kindJSONB                        // jsonb's output is the JSON to_jsonb embeds
	kindTimestamptz                  // ISO output to XSD form
	kindTimestamp
	kindDate
)

// kindOf classifies a column from its type (pg_type.typname, typtype) and
// whether its collation is deterministic.
func kindOf(typname string, typtype byte, deterministic bool) valueKind {
	switch typname {
	case "int2", "int4", "int8":
		return kindInt
	case "float4", "float8", "numeric":
		return kindFloat
	case "text", "varchar":
		if deterministic {
			return kindText
		}
	case "uuid":
		return kindUUID
	case "bool":
		return kindBool
	case "jsonb":
		return kindJSONB
	case "timestamptz":
		return kindTimestamptz
	case "timestamp":
		return kindTimestamp
	case "date":
		return kindDate
	}
	if typtype == 'e' {
		return kindText // an enum's label
	}
	return kindSQL
}

var (
	// to_jsonb turns a float into numeric: exponents and -0 print
	// differently then.
	plainNumber    = lazy.NewRegexp(`^-?[0-9]+(\.[0-9]+)?$`)
	negativeZero   = lazy.NewRegexp(`^-0(\.0+)?$`)
	isoDate        = lazy.NewRegexp(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	isoTimestamp   = lazy.NewRegexp(`^([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?)$`)
	isoTimestamptz = lazy.NewRegexp(`^([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?)([+-][0-9]{2})(:[0-9]{2})?$`)
	canonicalUUID  = lazy.NewRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// jsonValue renders a text value as to_jsonb does; false when it cannot
// be done here.
func jsonValue(k valueKind, v *string) (json.RawMessage, bool) {
	if v == nil {
		return json.RawMessage("null"), true
	}
	s := *v
	switch k {
	case kindInt, kindJSONB:
		return json.RawMessage(s), true
	case kindFloat:
		if plainNumber.MatchString(s) && !negativeZero.MatchString(s) {
			return json.RawMessage(s), true
		}
	case kindText, kindUUID:
		return jsonText(s), true
	case kindBool:
		switch s {
		case "t":
			return json.RawMessage("true"), true
		case "f":
			return json.RawMessage("false"), true
		}
	case kindDate:
		if isoDate.MatchString(s) {
			return jsonText(s), true
		}
	case kindTimestamp:
		if m := isoTimestamp.FindStringSubmatch(s); m != nil {
			return jsonText(m[1] + "T" + m[2]), true
		}
	case kindTimestamptz:
		if m := isoTimestamptz.FindStringSubmatch(s); m != nil {
			offset := m[4] + m[5]
			if m[5] == "" {
				offset += ":00"
			}
			return jsonText(m[1] + "T" + m[2] + offset), true
		}
	}
	return nil, false
}

// jsonText quotes s as PostgreSQL's escape_json does: the two-character
// escapes, \u00XX for other control characters, everything else as is.
func jsonText(s string) json.RawMessage {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		default:
			if c < 0x20 {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
				continue
			}
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// localRecord is a row's JSON object as recordSQL builds it (columns in
// order, unchanged ones left out), as a map by column name; false when a
// value needs PostgreSQL.
func localRecord(rel *relInfo, vals []*string, skip []int) (map[string]json.RawMessage, bool) {
	if len(vals) == 0 {
		return nil, true
	}
	out := make(map[string]json.RawMessage, len(rel.Cols))
	for i, col := range rel.Cols {
		if i >= len(vals) || containsInt(skip, i) {
			continue
		}
		v, ok := jsonValue(col.kind, vals[i])
		if !ok {
			return nil, false
		}
		out[col.Name] = v
	}
	return out, true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// localFilter is what filterSQL computes (a boolean that is never NULL)
// for the row's values; false when it cannot be decided here.
func localFilter(rel *relInfo, f filter, vals []*string) (result, ok bool) {
	i := rel.columnIndex(f.Column)
	if i < 0 {
		return false, true // filterSQL's "false" for a missing column
	}
	col := rel.Cols[i]
	var v *string
	if i < len(vals) {
		v = vals[i]
	}
	if f.Op == "is" {
		var r bool
		switch strings.ToLower(f.Value) {
		case "null":
			r = v == nil
		case "true", "false":
			if col.kind != kindBool {
				return false, false
			}
			r = v != nil && (*v == "t") == (strings.ToLower(f.Value) == "true")
		default:
			return false, false
		}
		return r != f.Negate, true
	}
	var r bool
	switch f.Op {
	case "eq", "neq", "lt", "lte", "gt", "gte":
		c, ok := compare(col, f.Op, v, f.Value)
		if !ok {
			return false, false
		}
		if v == nil {
			return false, true // NULL compared is NULL, coalesced to false
		}
		r = c
	case "in":
		items, ok := arrayItems(f.Value)
		if !ok {
			return false, false
		}
		if v == nil {
			return false, true
		}
		for _, it := range items {
			eq, ok := compare(col, "eq", v, it)
			if !ok {
				return false, false
			}
			r = r || eq
		}
	default:
		return false, false
	}
	return r != f.Negate, true
}

// compare applies a comparison between a column's value (nil: NULL, the
// result is then unused) and a filter value cast to the column's type;
// false when it cannot be decided here.
func compare(col column, op string, v *string, value string) (result, ok bool) {
	k := col.kind
	if k == kindText && strings.Contains(col.Type, "(") {
		return false, false // a cast to varchar(n) cuts the value
	}
	switch k {
	case kindInt:
		want, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false, false
		}
		if v == nil {
			return false, true
		}
		have, err := strconv.ParseInt(*v, 10, 64)
		if err != nil {
			return false, false
		}
		switch op {
		case "eq":
			return have == want, true
		case "neq":
			return have != want, true
		case "lt":
			return have < want, true
		case "lte":
			return have <= want, true
		case "gt":
			return have > want, true
		case "gte":
			return have >= want, true
		}
	case kindText, kindUUID, kindBool:
		if op != "eq" && op != "neq" {
			return false, false
		}
		want, ok := canonical(k, value)
		if !ok {
			return false, false
		}
		if v == nil {
			return false, true
		}
		return (*v == want) == (op == "eq"), true
	}
	return false, false
}

// canonical is a filter value as the column type's output would print it.
func canonical(k valueKind, value string) (string, bool) {
	switch k {
	case kindText:
		return value, true
	case kindUUID:
		if canonicalUUID.MatchString(value) {
			return strings.ToLower(value), true
		}
	case kindBool:
		switch value {
		case "true", "t":
			return "t", true
		case "false", "f":
			return "f", true
		}
	}
	return "", false
}

// arrayItems splits an in filter's array literal {a,b} whose items need no
// quoting; false for anything else (quotes, escapes, braces, spaces, NULL).
func arrayItems(lit string) ([]string, bool) {
	if len(lit) < 2 || lit[0] != '{' || lit[len(lit)-1] != '}' {
		return nil, false
	}
	body := lit[1 : len(lit)-1]
	if body == "" || strings.ContainsAny(body, "\"\\{} \t\n\r\f\v") {
		return nil, false
	}
	items := strings.Split(body, ",")
	for _, it := range items {
		if it == "" || strings.EqualFold(it, "null") {
			return nil, false
		}
	}
	return items, true
}
