package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/jwt"
)

// Stage 1, request: what the client sent, checked before anything is
// planned. ServeHTTP hands the result to the plan stage (plan.go,
// rpc_handler.go, openapi.go), which walks the later stages and returns
// the reply the respond stage built; only then is the writer used, to send
// that reply or render whatever error came back.

// ServeHTTP routes "/" (OpenAPI), "/{table}" and "/rpc/{fn}". It is the
// first stage, reading the request, and the last, sending the answer.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// newRequest always returns rc: its role is the anonymous one until
	// the token is read, which decides 401 or 403 for an early error.
	rc, err := s.newRequest(r)
	var rep *reply
	if err == nil {
		// The body cap needs the writer: net/http closes the connection
		// after a body over it instead of reading the rest.
		r.Body = http.MaxBytesReader(w, r.Body, rc.cfg.MaxBodyBytes)
		switch {
		case rc.route.root:
			rep, err = s.serveRoot(rc)
		case rc.route.fn != "":
			rep, err = s.serveRPC(rc)
		default:
			rep, err = s.serveTable(rc)
		}
	}
	if err != nil {
		s.writeError(w, r, err, rc.role == s.cfg.AnonRole)
		return
	}
	send(w, r, rep)
}

// route is the parsed request path: the root (OpenAPI), a table or view,
// or a function under /rpc.
type route struct {
	root  bool
	table string
	fn    string
}

// parsePath splits the escaped path, so that an encoded slash (%2F) stays
// inside a name rather than adding a segment. One trailing slash is
// tolerated; anything deeper than /rpc/{fn} is PGRST125.
func parsePath(p string) (route, bool) {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return route{root: true}, true
	}
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return route{}, false
		}
		segs[i] = u
	}
	switch {
	case len(segs) == 1:
		return route{table: segs[0]}, true
	case len(segs) == 2 && segs[0] == "rpc":
		return route{fn: segs[1]}, true
	}
	return route{}, false
}

// reqCtx is everything one request needs, read once by newRequest and
// carried through every stage. It holds no writer: a stage that answers
// returns a reply for ServeHTTP to send.
type reqCtx struct {
	r           *http.Request
	route       route
	cache       *Cache
	schema      string
	profileSent bool
	role        string
	claims      []byte
	prefs       prefs
	params      []param
	// cfg is the configuration in force: the service's, overridden by the
	// in-database pgrst.* settings of the snapshot's reload.
	cfg *Config
	// rollback: the transaction ends in ROLLBACK (db-tx-end, Prefer: tx);
	// txApplied: Prefer: tx was honoured, for Preference-Applied.
	rollback, txApplied bool
}

// newRequest reads what every route needs, in a fixed order: URL size and
// path, the token, the schema cache, the role, the profile header, the
// query string and Prefer. The first failure is the answer, so the order
// decides which error a request with several problems gets; the tests pin
// it.
func (s *Service) newRequest(r *http.Request) (*reqCtx, error) {
	rc := &reqCtx{r: r, role: s.cfg.AnonRole}
	if err := checkURLLength(r); err != nil {
		return rc, err
	}
	rt, ok := parsePath(r.URL.EscapedPath())
	if !ok {
		return rc, pgrstErr(404, "PGRST125", "Invalid path specified in request URL", nil, nil)
	}
	rc.route = rt
	// The gateway verified the token once; a failure is rendered here in
	// PostgREST's words (PGRST301/303), before the schema cache matters.
	caller := jwt.FromContext(r.Context())
	if caller.Err != nil {
		return rc, jwtError(caller.Err)
	}
	// One snapshot for the whole request, even if a reload lands meanwhile.
	cache := s.cache.Load()
	if cache == nil {
		return rc, pgrstErr(503, "PGRST002", "Could not query the database for the schema cache. Retrying.", nil, nil)
	}
	rc.cache = cache
	rc.cfg = &cache.cfg
	if caller.Claims != nil {
		if caller.Claims.Role != "" {
			rc.role = caller.Claims.Role
		}
		rc.claims = claimsWithRole(caller.Claims, rc.role)
	}
	// A role outside the allow-list never reaches Postgres. The error is
	// what PostgREST would get from SET ROLE: 22023 for a role that does
	// not exist, 42501 for one the authenticator may not become.
	if !s.roles.Allows(rc.role) {
		if !cache.Roles[rc.role] {
			return rc, &apiError{Status: 401, Code: "22023", Message: `role "` + rc.role + `" does not exist`}
		}
		return rc, &apiError{Status: 403, Code: "42501", Message: `permission denied to set role "` + rc.role + `"`}
	}
	// Reads pick the schema with Accept-Profile, writes with
	// Content-Profile (the body's schema); no header means the first
	// exposed schema.
	hdr := "Content-Profile"
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		hdr = "Accept-Profile"
	}
	rc.schema = s.cfg.Schemas[0]
	if p := r.Header.Get(hdr); p != "" {
		rc.profileSent = true
		found := false
		for _, sc := range s.cfg.Schemas {
			if sc == p {
				found = true
			}
		}
		if !found {
			return rc, pgrstErr(406, "PGRST106", "Invalid schema: "+p, nil,
				"Only the following schemas are exposed: "+strings.Join(s.cfg.Schemas, ", "))
		}
		rc.schema = p
	}
	rc.params = parseQuery(r.URL.RawQuery)
	rc.prefs = parsePrefer(r.Header)
	// handling=lenient (the default) ignores preferences it does not know;
	// strict refuses the request instead.
	if rc.prefs.handling == "strict" && len(rc.prefs.invalid) > 0 {
		return rc, pgrstErr(400, "PGRST122", "Invalid preferences given with handling=strict",
			"Invalid preferences: "+strings.Join(rc.prefs.invalid, ", "), nil)
	}
	rc.rollback, rc.txApplied = rollbackWanted(rc.cfg, rc.prefs)
	return rc, nil
}

// checkURLLength refuses an over-long URL before it is split (or a long
// name is compared with every table's for a hint).
func checkURLLength(r *http.Request) error {
	if n := len(r.URL.EscapedPath()) + len(r.URL.RawQuery); n > maxURLBytes {
		return pgrstErr(http.StatusBadRequest, "PGRST100", "URL too long",
			"The URL has "+strconv.Itoa(n)+" bytes; at most "+strconv.Itoa(maxURLBytes)+" are accepted", nil)
	}
	return nil
}

// claimsWithRole returns the claims JSON with "role" set to the effective
// role, reusing the verified bytes when they already say so.
func claimsWithRole(c *jwt.Claims, role string) []byte {
	if c.Role == role && len(c.Raw) > 0 {
		return c.Raw
	}
	m := make(map[string]any, len(c.Map)+1)
	for k, v := range c.Map {
		m[k] = v
	}
	m["role"] = role
	b, _ := json.Marshal(m)
	return b
}

// txOutcome decides commit vs rollback from db-tx-end and Prefer: tx.
func rollbackWanted(cfg *Config, p prefs) (rollback bool, applied bool) {
	switch cfg.TxEnd {
	case "rollback":
		return true, false
	case "commit-allow-override", "rollback-allow-override":
		if p.tx != "" {
			return p.tx == "rollback", true
		}
		return cfg.TxEnd == "rollback-allow-override", false
	}
	return false, false
}

// param is one decoded query parameter, in request order.
type param struct{ key, value string }

// parseQuery splits on '&' and ';' (PostgREST's http-types does both) and
// decodes names and values with '+' as space. Bare keys without '=' are
// dropped.
func parseQuery(raw string) []param {
	var out []param
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		dk, err := url.QueryUnescape(k)
		if err != nil {
			dk = k
		}
		dv, err := url.QueryUnescape(v)
		if err != nil {
			dv = v
		}
		out = append(out, param{dk, dv})
	}
	return out
}

// prefs is the parsed Prefer header.
type prefs struct {
	ret, count, resolution, missing, handling, tx, timezone string
	maxAffected                                             *int64
	invalid                                                 []string
}

// parsePrefer reads every Prefer header, comma-separated tokens each. The
// first valid value of a preference wins, as in PostgREST; unknown tokens
// and bad values are kept in invalid for handling=strict.
func parsePrefer(h http.Header) prefs {
	var p prefs
	for _, line := range h.Values("Prefer") {
		for _, tok := range strings.Split(line, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			k, v, _ := strings.Cut(tok, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			set := func(dst *string, allowed ...string) {
				for _, a := range allowed {
					if v == a {
						if *dst == "" {
							*dst = v
						}
						return
					}
				}
				p.invalid = append(p.invalid, tok)
			}
			switch k {
			case "return":
				set(&p.ret, "minimal", "headers-only", "representation")
			case "count":
				set(&p.count, "exact", "planned", "estimated")
			case "resolution":
				set(&p.resolution, "merge-duplicates", "ignore-duplicates")
			case "missing":
				set(&p.missing, "default", "null")
			case "handling":
				set(&p.handling, "strict", "lenient")
			case "tx":
				set(&p.tx, "commit", "rollback")
			// The time zone is checked against pg_timezone_names later,
			// when the snapshot is known (an unknown one is ignored).
			case "timezone":
				if p.timezone == "" {
					p.timezone = v
				}
			case "max-affected":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					p.invalid = append(p.invalid, tok)
				} else if p.maxAffected == nil {
					p.maxAffected = &n
				}
			default:
				p.invalid = append(p.invalid, tok)
			}
		}
	}
	return p
}
