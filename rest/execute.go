package rest

import (
	"strings"

	"github.com/basaltdev/basalt/internal/pg"
)

// Stage 4, execute: the statement runs as the caller, through the one
// caller primitive (internal/pg: role, claims and request settings as SET
// LOCAL, rendered here by setup), in one pipelined round trip on a pooled
// connection (execute_tx.go, execute_pipeline.go), on a read replica when
// the statement is read-only and one is configured.

// run executes st as the caller, or, when the client asked for the plan
// (application/vnd.pgrst.plan), runs EXPLAIN on it instead and returns the
// plan's text as the body, for respond to send as it is. The caller's setup
// is rendered once, here, whatever pool and transaction st then runs in.
func (s *Service) run(rc *reqCtx, st *statement, acc accept) (*result, error) {
	setup, err := s.setup(rc, st.readOnly)
	if err != nil {
		return nil, err
	}
	if acc.kind != mediaPlan {
		return s.execute(rc, st, setup)
	}
	body, err := s.explain(rc, st, acc, setup)
	if err != nil {
		return nil, err
	}
	return &result{body: body, plan: true}, nil
}

// setup renders PostgREST's pre-query through the one caller primitive:
// search_path and the role's own settings, the role switch and the
// request.* settings, then timezone and read-only, all as SET LOCAL in one
// statement whose text is shared (and prepared once per connection). It
// is the first step of the statement's pipeline.
func (s *Service) setup(rc *reqCtx, readOnly bool) (step, error) {
	// Before the role switch: search_path and the role's own settings
	// (ALTER ROLE … SET), which SET ROLE alone would not apply.
	before := append(make([]pg.Setting, 0, 8), pg.Setting{Name: "search_path", Value: rc.cache.searchPaths[rc.schema]})
	for _, kv := range rc.cache.RoleSettings[rc.role] {
		if !unsafeSetting(kv[0]) {
			before = append(before, pg.Setting{Name: kv[0], Value: kv[1]})
		}
	}
	// The request's method, path, headers and cookies come from the one
	// builder every service uses; the role and claims are REST's own: the
	// configured anonymous role, and claims that carry the role in force.
	c := pg.CallerFromRequest(rc.r, nil)
	c.Role, c.Claims, c.Before, c.Roles = rc.role, rc.claims, before, s.roles
	if c.Claims == nil {
		c.Claims = s.anonClaims
	}
	if tz := rc.prefs.timezone; tz != "" && rc.cache.Timezones[tz] {
		c.After = append(c.After, pg.Setting{Name: "timezone", Value: tz})
	}
	if readOnly {
		c.After = append(c.After, pg.Setting{Name: "transaction_read_only", Value: "on"})
	}
	sql, args, err := c.Setup()
	if err != nil {
		return step{}, err
	}
	if s.traceSetup != nil {
		s.traceSetup(sql, args)
	}
	return step{sql: sql, args: args, prepare: true}, nil
}

// unsafeSetting reports role settings that are not applied per request:
// pgrst.* configure this service, search_path and role are the request's
// own, and log_* and session_preload_libraries need a superuser or only
// act at login.
func unsafeSetting(k string) bool {
	return strings.HasPrefix(k, "pgrst.") || k == "session_preload_libraries" || strings.HasPrefix(k, "log_") ||
		k == "search_path" || k == "role"
}

// searchPaths renders, for each exposed schema, the search_path of a
// request to it: the schema, then the extra search path, quoted.
func searchPaths(cfg *Config) map[string]string {
	out := make(map[string]string, len(cfg.Schemas))
	for _, schema := range cfg.Schemas {
		path := []string{quoteIdent(schema)}
		for _, p := range cfg.ExtraSearchPath {
			path = append(path, quoteIdent(p))
		}
		out[schema] = strings.Join(path, ", ")
	}
	return out
}
