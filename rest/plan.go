package rest

import (
	"net/http"
	"sort"
	"strings"
)

// Stage 2, plan: what the request asks for, resolved against the schema
// cache into a tree of nodes (plan_embed.go) with their filters, order and
// page (plan_filter.go), before any SQL is written. The handlers here and
// in write.go and rpc_handler.go then walk the remaining stages in order
// and return the reply the respond stage built.

// serveTable finds the table or view the path names and the action the
// method asks for. A missing table is PGRST205 with a "Perhaps you meant"
// hint among the tables of the same schema, as in PostgREST.
func (s *Service) serveTable(rc *reqCtx) (*reply, error) {
	t := rc.cache.Table(rc.schema, rc.route.table)
	if t == nil {
		var names []string
		for _, c := range rc.cache.Tables {
			if c.Schema == rc.schema {
				names = append(names, c.Name)
			}
		}
		sort.Strings(names)
		var hint any
		if best := fuzzyBest(rc.route.table, names, fuzzyNames); best != "" {
			hint = "Perhaps you meant the table '" + rc.schema + "." + best + "'"
		}
		return nil, pgrstErr(404, "PGRST205", "Could not find the table '"+rc.schema+"."+rc.route.table+"' in the schema cache", nil, hint)
	}
	switch rc.r.Method {
	case http.MethodGet, http.MethodHead:
		return s.read(rc, t)
	case http.MethodPost:
		return s.insert(rc, t)
	case http.MethodPatch:
		return s.update(rc, t)
	case http.MethodPut:
		return s.put(rc, t)
	case http.MethodDelete:
		return s.delete(rc, t)
	case http.MethodOptions:
		allow := []string{"OPTIONS", "GET", "HEAD"}
		if t.Insertable {
			allow = append(allow, "POST")
		}
		if t.Insertable && t.Updatable && len(t.PK) > 0 {
			allow = append(allow, "PUT")
		}
		if t.Updatable {
			allow = append(allow, "PATCH")
		}
		if t.Deletable {
			allow = append(allow, "DELETE")
		}
		rep := newReply(http.StatusOK)
		rep.header.Set("Allow", strings.Join(allow, ","))
		return rep, nil
	}
	return nil, pgrstErr(405, "PGRST117", "Unsupported HTTP method: "+rc.r.Method, nil, nil)
}

// read answers GET and HEAD on a table or view: the tree of what to read
// (planRead), the one statement that reads it (readStatement), that
// statement run as the caller (run), and the answer (respondRead).
func (s *Service) read(rc *reqCtx, t *Table) (*reply, error) {
	p, err := s.planRead(rc, t)
	if err != nil {
		return nil, err
	}
	st, err := readStatement(rc, p)
	if err != nil {
		return nil, err
	}
	res, err := s.run(rc, st, p.acc)
	if err != nil {
		return nil, err
	}
	return s.respondRead(rc, p, res)
}

// readPlan is a planned read: the negotiated representation and the tree
// of the root resource, its embeds, filters, order and page.
type readPlan struct {
	acc  accept
	root *node
	// from is the quoted table the root reads, its qualifier in the SQL.
	from string
}

// planRead plans a read, its checks in a fixed order: media type first (a
// bad Accept is 406 before the select is parsed), then the select and its
// embeds, then filters, order and paging from the query string.
func (s *Service) planRead(rc *reqCtx, t *Table) (*readPlan, error) {
	acc, err := negotiate(rc.cfg, rc.r.Header.Get("Accept"), false)
	if err != nil {
		return nil, err
	}
	items, err := parseSelect(selectParam(rc.params))
	if err != nil {
		return nil, err
	}
	from := quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
	root, err := s.buildTree(rc.cache, t, t.Name, from, items)
	if err != nil {
		return nil, err
	}
	if err := applyQuery(rc, root, nil); err != nil {
		return nil, err
	}
	return &readPlan{acc: acc, root: root, from: from}, nil
}
