// Package lazy holds package-level values made on first use instead of at
// package initialisation: compiled regular expressions, lookup tables,
// parsed templates. A variable declared with it is laid out by the linker
// (no initialiser runs at start), so a process that never reaches a feature
// pays neither the CPU nor the heap for its tables, nor the pages of the
// binary its initialiser would touch.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a value made by New the first time Get is called; concurrent
// callers wait for that one call. Declare it as a pointer to a composite
// literal so that it needs no initialiser:
//
//	var ops = &lazy.Value[map[string]string]{New: func() map[string]string { ... }}
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, making it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}

// Regexp is a regular expression compiled on first use. A malformed
// expression panics at that use, as regexp.MustCompile would at start.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// NewRegexp returns expr, to be compiled on first use. Called in a
// package-level declaration it is inlined into static data: no code runs
// at start.
func NewRegexp(expr string) *Regexp { return &Regexp{expr: expr} }

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// FindStringSubmatch is regexp.Regexp's FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindStringIndex is regexp.Regexp's FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

// ReplaceAllString is regexp.Regexp's ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }
