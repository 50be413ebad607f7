package functions

import (
	"net/http"
	"strings"
)

// The canonical CORS headers of @supabase/supabase-js/cors (corsHeaders in
// 2.119), which Supabase functions attach to every response.
const (
	corsAllowHeaders = "authorization, x-client-info, apikey, content-type, x-retry-count, traceparent, tracestate, baggage"
	corsAllowMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
)

// setCORS attaches the CORS headers to a response before anything else is
// written, so errors from verify_jwt, a missing function or the runtime
// reach browsers as FunctionsHttpError instead of a CORS-blocked
// FunctionsFetchError. A handler may still override them.
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
}

// preflight answers an OPTIONS request with 204, echoing the requested
// headers the way Kong's cors plugin does, so custom headers such as x-region
// are allowed without a list to keep in sync.
func preflight(w http.ResponseWriter, r *http.Request) {
	if req := strings.TrimSpace(r.Header.Get("Access-Control-Request-Headers")); req != "" {
		w.Header().Set("Access-Control-Allow-Headers", req)
	}
	w.Header().Set("Access-Control-Max-Age", "3600")
	w.Header().Add("Vary", "Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
}
