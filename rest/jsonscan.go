package rest

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// A request body is handed to Postgres as one JSON value; Go only needs its
// shape (how many objects, which keys). These helpers walk JSON that
// json.Valid has accepted, without decoding values or recursing, so a body
// costs no memory beyond its own bytes however it is nested.

// skipSpace skips JSON whitespace (the four characters RFC 8259 allows).
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	// A number, true, false or null ends at the next delimiter.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' &&
		b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// eachElement calls fn with every element of the array arr.
func eachElement(arr []byte, fn func(elem []byte) error) error {
	i := skipSpace(arr, 1)
	if arr[i] == ']' {
		return nil
	}
	for {
		end := skipValue(arr, i)
		if err := fn(arr[i:end]); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if arr[i] == ']' {
			return nil
		}
		i = skipSpace(arr, i+1)
	}
}

// eachKey calls fn with every key of the object obj, as it is written
// (escapes included, quotes excluded).
func eachKey(obj []byte, fn func(key []byte) error) error {
	i := skipSpace(obj, 1)
	if obj[i] == '}' {
		return nil
	}
	for {
		end := skipString(obj, i)
		if err := fn(obj[i+1 : end-1]); err != nil {
			return err
		}
		i = skipSpace(obj, end) // at ':'
		i = skipValue(obj, skipSpace(obj, i+1))
		i = skipSpace(obj, i)
		if obj[i] == '}' {
			return nil
		}
		i = skipSpace(obj, i+1)
	}
}

// keyString decodes a key as eachKey gives it.
// Keys are nearly always plain; only one with an escape pays for a decode.
func keyString(raw []byte) string {
	for _, c := range raw {
		if c == '\\' {
			var s string
			quoted := make([]byte, 0, len(raw)+2)
			quoted = append(append(append(quoted, '"'), raw...), '"')
			_ = json.Unmarshal(quoted, &s)
			return s
		}
	}
	return string(raw)
}

// objectKeys lists the distinct keys of the object obj, sorted.
// Sorted so that the same key set always yields the same column list,
// and so the same statement text (prepared once per connection).
func objectKeys(obj []byte) []string {
	n := 0
	_ = eachKey(obj, func([]byte) error { n++; return nil })
	keys := make([]string, 0, n)
	_ = eachKey(obj, func(raw []byte) error {
		keys = append(keys, keyString(raw))
		return nil
	})
	slices.Sort(keys)
	return slices.Compact(keys)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
// CSV bodies are turned into JSON with it, field by field, without
// building Go values first.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
