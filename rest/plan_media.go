package rest

import (
	"sort"
	"strconv"
	"strings"
)

// Content negotiation (PostgREST's MediaType and the plan's
// negotiateContent): which representation the client gets. It is part of
// the plan because what a function returns can make it the handler of a
// media type (negotiateWith), so the answer is only known once the target
// is resolved.

// media is the negotiated response representation.
type media int

const (
	mediaJSON media = iota
	mediaObject
	mediaCSV
	mediaGeoJSON
	mediaPlan
	mediaOpenAPI
	// mediaCustom is a media-type handler's type (accept.custom).
	mediaCustom
)

// accept is the outcome of negotiation: the representation, and what the
// body aggregate and Content-Type need to know about it.
type accept struct {
	kind       media
	stripNulls bool
	// custom is the Content-Type a media-type handler answers with.
	custom string
	// The plan media types: EXPLAIN as JSON or text, the representation
	// the plan is for (for=…), and EXPLAIN's options (options=analyze|…).
	planJSON    bool
	planFor     media
	planOptions []string
}

// mediaRange is one entry of the Accept header.
type mediaRange struct {
	typ    string
	params map[string]string
	q      float64
}

// parseAcceptHeader splits Accept into ranges ordered by q, highest first;
// the sort is stable so equal weights keep the client's order, which is how
// PostgREST breaks ties. A malformed q counts as 1.
func parseAcceptHeader(h string) []mediaRange {
	var out []mediaRange
	for _, part := range strings.Split(h, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		segs := strings.Split(part, ";")
		m := mediaRange{typ: strings.ToLower(strings.TrimSpace(segs[0])), params: map[string]string{}, q: 1}
		for _, s := range segs[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(s), "=")
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.Trim(strings.TrimSpace(v), `"`)
			if k == "q" {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					m.q = f
				}
				continue
			}
			if k != "" {
				m.params[k] = v
			}
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// negotiate picks the response media type; root allows OpenAPI.
func negotiate(cfg *Config, h string, root bool) (accept, error) {
	return negotiateWith(cfg, h, root, "")
}

// negotiateWith is negotiate for an endpoint with a media-type handler: a
// function returning a domain named after a media type. The handler serves
// its type wherever the Accept list names it first (also over a built-in
// type of the same name); a "*/*" handler serves every request, even one
// without Accept. PostgREST's own vendor types cannot be taken over.
func negotiateWith(cfg *Config, h string, root bool, handler string) (accept, error) {
	if strings.HasPrefix(handler, "application/vnd.pgrst.") {
		handler = ""
	}
	if handler == "*/*" {
		ct := "application/octet-stream"
		for _, m := range parseAcceptHeader(h) {
			if !strings.Contains(m.typ, "*") {
				ct = m.typ
				break
			}
		}
		return accept{kind: mediaCustom, custom: ct}, nil
	}
	// No Accept at all is JSON (OpenAPI at the root), as for */*.
	if strings.TrimSpace(h) == "" {
		if root {
			return accept{kind: mediaOpenAPI}, nil
		}
		return accept{kind: mediaJSON}, nil
	}
	// The first range that anything here can serve wins; none is 406.
	for _, m := range parseAcceptHeader(h) {
		if handler != "" && m.typ == handler {
			return accept{kind: mediaCustom, custom: handler}, nil
		}
		if a, ok := builtinMedia(cfg, m, root); ok {
			return a, nil
		}
	}
	return accept{}, pgrstErr(406, "PGRST107", "None of these media types are available: "+h, nil, nil)
}

// builtinMedia matches one Accept range against the built-in media types.
func builtinMedia(cfg *Config, m mediaRange, root bool) (accept, bool) {
	strip := m.params["nulls"] == "stripped"
	switch m.typ {
	case "*/*", "application/*":
		if root {
			return accept{kind: mediaOpenAPI}, true
		}
		return accept{kind: mediaJSON}, true
	case "application/json":
		if root {
			return accept{kind: mediaOpenAPI}, true
		}
		return accept{kind: mediaJSON}, true
	case "application/openapi+json":
		if root {
			return accept{kind: mediaOpenAPI}, true
		}
	case "application/vnd.pgrst.array+json", "application/vnd.pgrst.array":
		if !root {
			return accept{kind: mediaJSON, stripNulls: strip}, true
		}
	case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
		if !root {
			return accept{kind: mediaObject, stripNulls: strip}, true
		}
	case "text/csv":
		if !root {
			return accept{kind: mediaCSV}, true
		}
	// GeoJSON is rendered by PostGIS's ST_AsGeoJSON, so it is only on
	// offer where the extension is installed.
	case "application/geo+json":
		if !root && cfg.postgis {
			return accept{kind: mediaGeoJSON}, true
		}
	// Plans reveal the schema and cost a query: off unless db-plan-enabled.
	case "application/vnd.pgrst.plan", "application/vnd.pgrst.plan+text", "application/vnd.pgrst.plan+json":
		if root || !cfg.PlanEnabled {
			return accept{}, false
		}
		a := accept{kind: mediaPlan, planJSON: m.typ == "application/vnd.pgrst.plan+json", planFor: mediaJSON}
		switch m.params["for"] {
		case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
			a.planFor = mediaObject
		case "text/csv":
			a.planFor = mediaCSV
		}
		// Only EXPLAIN options from this list reach the SQL; others are
		// dropped, never interpolated.
		for _, o := range strings.Split(m.params["options"], "|") {
			switch o {
			case "analyze", "verbose", "settings", "buffers", "wal":
				a.planOptions = append(a.planOptions, strings.ToUpper(o))
			}
		}
		return a, true
	}
	return accept{}, false
}
