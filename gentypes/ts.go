package gentypes

import (
	"strconv"
	"strings"
	"unicode"
)

// A small TypeScript type syntax tree, printed the way prettier prints it
// (see doc.go), so the layout decisions live in one place.

// tsType is a TypeScript type expression.
type tsType interface{ tsType() }

type (
	// tsKeyword is a keyword or literal keyword: string, null, true...
	tsKeyword string
	// tsRef is a type reference: Json, Record<string, unknown>.
	tsRef string
	// tsIndexed is an indexed access: Database["public"]["Enums"]["x"].
	tsIndexed string
	// tsString is a string literal type.
	tsString string
	// tsArray is T[].
	tsArray struct{ elem tsType }
	// tsUnion is A | B.
	tsUnion []tsType
	// tsIntersection is A & B.
	tsIntersection []tsType
	// tsTuple is [A, B].
	tsTuple []tsType
	// tsObject is a type literal; expand keeps it broken over lines even
	// when it would fit on one (prettier keeps objects that start with a
	// line break broken).
	tsObject struct {
		members []member
		expand  bool
	}
)

// member is one property of a type literal (or of an object value when
// printed with commas). raw, when set, is printed as the whole member.
type member struct {
	key      string
	optional bool
	typ      tsType
	raw      string
	comment  string // a line comment printed above the member
}

func (tsKeyword) tsType()      {}
func (tsRef) tsType()          {}
func (tsIndexed) tsType()      {}
func (tsString) tsType()       {}
func (tsArray) tsType()        {}
func (tsUnion) tsType()        {}
func (tsIntersection) tsType() {}
func (tsTuple) tsType()        {}
func (tsObject) tsType()       {}

// nullable is t | null, flattening a union so it stays one list of
// alternatives (unknown already includes null).
func nullable(t tsType) tsType {
	switch v := t.(type) {
	case tsKeyword:
		if v == "unknown" || v == "any" {
			return t
		}
	case tsUnion:
		return append(append(tsUnion{}, v...), tsKeyword("null"))
	}
	return tsUnion{t, tsKeyword("null")}
}

// place says where a type is printed: unions indent in a property,
// take parentheses inside an array or intersection.
type place int

const (
	inProperty place = iota
	inParens
)

func printType(t tsType, ctx place) doc {
	switch v := t.(type) {
	case tsKeyword:
		return string(v)
	case tsRef:
		return string(v)
	case tsIndexed:
		return string(v)
	case tsString:
		return quote(string(v))
	case tsArray:
		switch v.elem.(type) {
		case tsUnion, tsIntersection:
			return docs{printType(v.elem, inParens), "[]"}
		}
		return docs{printType(v.elem, inProperty), "[]"}
	case tsUnion:
		return printUnion(v, ctx)
	case tsIntersection:
		return printIntersection(v, ctx)
	case tsTuple:
		return printTuple(v)
	case tsObject:
		return printObject(v.members, v.expand, false)
	}
	panic("gentypes: unknown type node")
}

// printUnion follows prettier: an object (or reference) with only null
// alternatives hugs ("{...} | null"); otherwise a union that does not fit
// breaks before each "|".
func printUnion(u tsUnion, ctx place) doc {
	parts := make([]doc, len(u))
	if hugs(u) {
		for i, t := range u {
			parts[i] = printType(t, inProperty)
		}
		return join(" | ", parts)
	}
	for i, t := range u {
		parts[i] = align(2, printType(t, inProperty))
	}
	body := join(docs{line, "| "}, parts)
	switch ctx {
	case inParens:
		main := docs{ifBreak{brk: docs{line, "| "}}, body}
		return docs{"(", newGroup(docs{indent(main), softline}, false), ")"}
	}
	main := docs{ifBreak{brk: docs{line, "| "}}, body}
	return newGroup(indent(newGroup(main, false)), false)
}

func hugs(u tsUnion) bool {
	objects := 0
	for _, t := range u {
		switch v := t.(type) {
		case tsObject, tsRef:
			objects++
		case tsKeyword:
			if v != "null" && v != "void" {
				return false
			}
		default:
			return false
		}
	}
	return objects == 1
}

// printIntersection follows prettier: an object next to a non-object stays
// on the same line ("{...} & T"); two non-objects break after "&".
func printIntersection(x tsIntersection, ctx place) doc {
	out := docs{}
	indented := false
	for i, t := range x {
		d := printType(t, inParens)
		if i == 0 {
			out = append(out, d)
			continue
		}
		_, prevObj := x[i-1].(tsObject)
		_, curObj := t.(tsObject)
		switch {
		case prevObj && curObj:
			if indented {
				d = indent(d)
			}
			out = append(out, " & ", d)
		case !prevObj && !curObj:
			out = append(out, indent(" &", line, d))
		default:
			if i > 1 {
				indented = true
				d = indent(d)
			}
			out = append(out, " & ", d)
		}
	}
	g := newGroup(out, false)
	if ctx == inParens {
		return docs{"(", g, ")"}
	}
	return g
}

func printTuple(t tsTuple) doc {
	if len(t) == 0 {
		return "[]"
	}
	parts := make([]doc, len(t))
	for i, e := range t {
		parts[i] = printType(e, inProperty)
	}
	return newGroup(docs{"[", indent(softline, join(docs{",", line}, parts)), ifBreak{brk: ","}, softline, "]"}, false)
}

// printObject prints a type literal (members separated by line breaks, or
// "; " when flat) or, with commas, an object value (trailing comma when
// broken).
func printObject(members []member, expand, commas bool) doc {
	if len(members) == 0 {
		return "{}"
	}
	sep := doc(ifBreak{brk: "", flat: ";"})
	var trailing doc
	if commas {
		sep, trailing = ",", ifBreak{brk: ","}
	}
	parts := docs{}
	for i, m := range members {
		if i > 0 {
			parts = append(parts, sep, line)
		}
		parts = append(parts, newGroup(printMember(m, commas), false))
	}
	return newGroup(docs{"{", indent(line, parts), trailing, line, "}"}, expand)
}

func printMember(m member, value bool) doc {
	if m.comment != "" {
		c := m
		c.comment = ""
		return docs{"// " + m.comment, hardline, printMember(c, value)}
	}
	if m.raw != "" {
		return m.raw
	}
	opt := ""
	if m.optional {
		opt = "?"
	}
	var v doc
	if value {
		v = printValue(m.typ)
	} else {
		v = printType(m.typ, inProperty)
	}
	return docs{propertyKey(m.key), opt, ": ", v}
}

// printValue prints the Constants object: type nodes stand for the values
// they spell (objects with commas, tuples as arrays).
func printValue(t tsType) doc {
	if o, ok := t.(tsObject); ok {
		return printObject(o.members, o.expand, true)
	}
	return printType(t, inProperty)
}

// propertyKey leaves a key bare when it is an identifier name, as
// prettier's "as-needed" quoting does, else quotes it.
func propertyKey(k string) string {
	if isIdentifierName(k) {
		return k
	}
	return quote(k)
}

func isIdentifierName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '$' || r == '_' || unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)):
		default:
			return false
		}
	}
	return true
}

// quote writes s as a string literal the way JSON.stringify escapes it,
// in double quotes unless s holds more double than single quotes (prettier's
// choice).
func quote(s string) string {
	q := byte('"')
	if strings.Count(s, `"`) > strings.Count(s, "'") {
		q = '\''
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			h := strconv.FormatInt(int64(r), 16)
			if len(h) < 2 {
				h = "0" + h
			}
			b.WriteString(h)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
