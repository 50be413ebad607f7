package gateway_test

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// syncWriter serialises writes from concurrent handlers into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// String returns what was written so far.
func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// waitFor polls until the log holds want: the access log line is written
// after the response has gone out.
func (s *syncWriter) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := s.String()
		if bytes.Contains([]byte(got), []byte(want)) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}
