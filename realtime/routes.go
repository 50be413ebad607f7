package realtime

// routes lists every endpoint of /realtime/v1.
func (s *Service) routes() {
	s.mux.HandleFunc("GET /websocket", s.websocket)
	s.mux.HandleFunc("POST /api/broadcast", s.apiBroadcast)
	s.mux.HandleFunc("POST /api/broadcast/{topic}/events/{event}", s.apiBroadcastEvent)
}
