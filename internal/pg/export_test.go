package pg

// Pending is how many events wait for s's goroutine.
func Pending(s *Subscription) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}
