package realtime

// Crash stops s as if its process died: no changes are drained, sockets
// are dropped without a close frame. (Close, called later, does nothing.)
func Crash(s *Service) { s.closeOnce.Do(s.stop) }

// Listening reports whether s listens for notifications (realtime.send's
// and the other nodes'): one sent before then is not heard.
func Listening(s *Service) bool { return s.cluster.listening.Load() }

// UserSockets is how many sockets the signed-in user sub has joined with,
// across the project's nodes as s last heard.
func UserSockets(s *Service, sub string) int64 {
	return s.clientUsers(clientKey{signedIn: true, id: "user:" + sub})
}
