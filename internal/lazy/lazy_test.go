package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

// A malformed expression is not compiled until it is used: NewRegexp does
// no work, and the first use panics as regexp.MustCompile would.
func TestRegexpCompilesOnFirstUse(t *testing.T) {
	bad := NewRegexp(`(`)
	if bad.re != nil {
		t.Fatal("compiled before use")
	}
	defer func() {
		if recover() == nil {
			t.Error("a malformed expression did not panic at its first use")
		}
	}()
	bad.MatchString("x")
}

func TestRegexpMethods(t *testing.T) {
	re := NewRegexp(`^(\d+)-(\d+)$`)
	if !re.MatchString("12-34") || re.MatchString("12-x") {
		t.Error("MatchString")
	}
	if m := re.FindStringSubmatch("12-34"); len(m) != 3 || m[1] != "12" || m[2] != "34" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
	if loc := NewRegexp(`b+`).FindStringIndex("aabbbc"); len(loc) != 2 || loc[0] != 2 || loc[1] != 5 {
		t.Errorf("FindStringIndex = %v", loc)
	}
	if got := NewRegexp(`[^a-z]`).ReplaceAllString("a-b c", "_"); got != "a_b_c" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	if re.String() != `^(\d+)-(\d+)$` || re.Regexp() != re.Regexp() {
		t.Error("String or Regexp")
	}
}

// Callers racing for a value all get the one value New made once.
func TestValueMadeOnce(t *testing.T) {
	var calls atomic.Int32
	v := &Value[map[string]int]{New: func() map[string]int {
		calls.Add(1)
		return map[string]int{"a": 1}
	}}
	if calls.Load() != 0 {
		t.Fatal("made before use")
	}
	var wg sync.WaitGroup
	got := make([]map[string]int, 8)
	for i := range got {
		wg.Go(func() { got[i] = v.Get() })
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("New ran %d times, want once", n)
	}
	for _, m := range got {
		if m["a"] != 1 {
			t.Fatalf("got %v", m)
		}
		m["b"]++ // the same map for everyone
	}
	if v.Get()["b"] != len(got) {
		t.Errorf("callers got different maps: %v", v.Get())
	}
}
