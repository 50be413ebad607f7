package gateway

import (
	"net/http"
	"slices"
	"strings"
)

// corsAllowHeaders are the request headers browsers may send: every header
// supabase-js 2.119 (auth, postgrest, storage, functions, realtime clients)
// sets, including the retry counter, trace propagation, storage metadata and
// the functions region headers its own cors module lists, plus the TUS
// headers tus-js-client sends to /storage/v1/upload/resumable.
const corsAllowHeaders = "authorization, apikey, x-client-info, content-type, prefer, range, accept-profile, " +
	"content-profile, x-upsert, x-supabase-api-version, cache-control, x-retry-count, x-metadata, x-region, " +
	"traceparent, tracestate, baggage, tus-resumable, upload-length, upload-metadata, upload-offset, " +
	"upload-defer-length, upload-concat, x-http-method-override, x-signature"

// corsExposeHeaders are the response headers browser code may read:
// PostgREST's counts and locations, storage redirects, auth error codes, and
// the TUS upload state (a resumable upload reads Location and Upload-Offset).
const corsExposeHeaders = "Content-Range, Content-Location, Location, Preference-Applied, X-Total-Count, Link, " +
	"x-sb-error-code, X-Supabase-Api-Version, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, " +
	"Upload-Offset, Upload-Length, Upload-Metadata"

const corsAllowMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

// cors sets the CORS response headers before any handler runs, so that error
// responses (401, 404, 500) are readable by browser code too.
func (g *Gateway) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	allowed := "*"
	if len(g.cfg.CORSOrigins) > 0 && !slices.Contains(g.cfg.CORSOrigins, "*") {
		h.Add("Vary", "Origin")
		if !slices.ContainsFunc(g.cfg.CORSOrigins, func(o string) bool { return strings.EqualFold(o, origin) }) {
			return
		}
		allowed = origin
	}
	h.Set("Access-Control-Allow-Origin", allowed)
	if isPreflight(r) {
		h.Set("Access-Control-Allow-Methods", corsAllowMethods)
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", "3600")
		return
	}
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
}
