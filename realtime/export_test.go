package realtime

// Crash stops s as if its process died: no changes are drained, sockets
// are dropped without a close frame. (Close, called later, does nothing.)
func Crash(s *Service) { s.closeOnce.Do(s.stop) }
