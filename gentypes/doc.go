package gentypes

import (
	"strings"
	"unicode/utf8"
)

// The generated file is laid out the way the Supabase CLI's output is: that
// output goes through prettier (print width 80, two-space indent, no
// semicolons), so files made by either tool diff cleanly. This is a small
// document printer of the same family (Wadler's "prettier printer"): a
// document is text with groups that print flat when they fit on the line
// and broken otherwise.

// doc is one of: string, docs, *group, indentDoc, alignDoc, lineDoc, ifBreak.
type doc any

// docs is a concatenation.
type docs []doc

// group prints its contents flat when they fit, else broken. brk forces
// the broken form; it spreads to every enclosing group.
type group struct {
	contents doc
	brk      bool
}

// indentDoc indents the lines its contents break onto by two spaces.
type indentDoc struct{ contents doc }

// alignDoc indents the lines its contents break onto by n spaces.
type alignDoc struct {
	n        int
	contents doc
}

// lineDoc is a possible line break: a space (or nothing when soft) when its
// group is flat, a newline when it is broken. A hard line always breaks.
type lineDoc struct{ soft, hard bool }

// ifBreak prints brk when the enclosing group is broken, else flat.
type ifBreak struct{ brk, flat doc }

var (
	line     = lineDoc{}
	softline = lineDoc{soft: true}
	hardline = lineDoc{hard: true}
)

func newGroup(d doc, brk bool) *group { return &group{contents: d, brk: brk} }
func indent(d ...doc) indentDoc       { return indentDoc{docs(d)} }
func align(n int, d doc) alignDoc     { return alignDoc{n, d} }

// join puts sep between parts.
func join(sep doc, parts []doc) docs {
	out := make(docs, 0, 2*len(parts))
	for i, p := range parts {
		if i > 0 {
			out = append(out, sep)
		}
		out = append(out, p)
	}
	return out
}

// propagate marks every group that holds a hard line or a broken group as
// broken, and reports whether d forces a break.
func propagate(d doc) bool {
	switch d := d.(type) {
	case docs:
		forced := false
		for _, p := range d {
			if propagate(p) {
				forced = true
			}
		}
		return forced
	case *group:
		if propagate(d.contents) {
			d.brk = true
		}
		return d.brk
	case indentDoc:
		return propagate(d.contents)
	case alignDoc:
		return propagate(d.contents)
	case ifBreak:
		a, b := propagate(d.brk), propagate(d.flat)
		return a || b
	case lineDoc:
		return d.hard
	}
	return false
}

type mode int

const (
	modeBreak mode = iota
	modeFlat
)

type cmd struct {
	ind  int
	mode mode
	doc  doc
}

// printDoc lays d out within width columns.
func printDoc(d doc, width int) string {
	propagate(d)
	var out strings.Builder
	pos := 0
	stack := []cmd{{0, modeBreak, d}}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := c.doc.(type) {
		case nil:
		case string:
			out.WriteString(x)
			pos += textWidth(x)
		case docs:
			for i := len(x) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, c.mode, x[i]})
			}
		case indentDoc:
			stack = append(stack, cmd{c.ind + 2, c.mode, x.contents})
		case alignDoc:
			stack = append(stack, cmd{c.ind + x.n, c.mode, x.contents})
		case *group:
			m := modeBreak
			if !x.brk && (c.mode == modeFlat || fits(cmd{c.ind, modeFlat, x.contents}, stack, width-pos)) {
				m = modeFlat
			}
			stack = append(stack, cmd{c.ind, m, x.contents})
		case ifBreak:
			if c.mode == modeBreak {
				stack = append(stack, cmd{c.ind, c.mode, x.brk})
			} else {
				stack = append(stack, cmd{c.ind, c.mode, x.flat})
			}
		case lineDoc:
			if c.mode == modeFlat && !x.hard {
				if !x.soft {
					out.WriteByte(' ')
					pos++
				}
				continue
			}
			trimmed := strings.TrimRight(out.String(), " \t")
			out.Reset()
			out.WriteString(trimmed)
			out.WriteByte('\n')
			out.WriteString(strings.Repeat(" ", c.ind))
			pos = c.ind
		}
	}
	return out.String()
}

// fits reports whether next, followed by what is left on the stack, reaches
// the end of the line (or a break) within width columns.
func fits(next cmd, rest []cmd, width int) bool {
	restIdx := len(rest)
	todo := []cmd{next}
	for width >= 0 {
		if len(todo) == 0 {
			if restIdx == 0 {
				return true
			}
			restIdx--
			todo = append(todo, rest[restIdx])
			continue
		}
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		switch x := c.doc.(type) {
		case string:
			width -= textWidth(x)
		case docs:
			for i := len(x) - 1; i >= 0; i-- {
				todo = append(todo, cmd{c.ind, c.mode, x[i]})
			}
		case indentDoc:
			todo = append(todo, cmd{c.ind, c.mode, x.contents})
		case alignDoc:
			todo = append(todo, cmd{c.ind, c.mode, x.contents})
		case *group:
			m := c.mode
			if x.brk {
				m = modeBreak
			}
			todo = append(todo, cmd{c.ind, m, x.contents})
		case ifBreak:
			if c.mode == modeBreak {
				todo = append(todo, cmd{c.ind, c.mode, x.brk})
			} else {
				todo = append(todo, cmd{c.ind, c.mode, x.flat})
			}
		case lineDoc:
			if c.mode == modeBreak || x.hard {
				return true
			}
			if !x.soft {
				width--
			}
		}
	}
	return false
}

// textWidth counts characters; the names printed are identifiers and
// labels, where one character takes one column.
func textWidth(s string) int { return utf8.RuneCountInString(s) }
