package rest

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
)

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

// first returns the first value of key and whether it was present.
func first(ps []param, key string) (string, bool) {
	for _, p := range ps {
		if p.key == key {
			return p.value, true
		}
	}
	return "", false
}

// prefs is the parsed Prefer header.
type prefs struct {
	ret, count, resolution, missing, handling, tx, timezone string
	maxAffected                                             *int64
	invalid                                                 []string
}

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

type accept struct {
	kind       media
	stripNulls bool
	// custom is the Content-Type a media-type handler answers with.
	custom string
	// plan options
	planJSON    bool
	planFor     media
	planOptions []string
}

type mediaRange struct {
	typ    string
	params map[string]string
	q      float64
}

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
	if strings.TrimSpace(h) == "" {
		if root {
			return accept{kind: mediaOpenAPI}, nil
		}
		return accept{kind: mediaJSON}, nil
	}
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
	case "application/geo+json":
		if !root && cfg.postgis {
			return accept{kind: mediaGeoJSON}, true
		}
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

// contentType renders the response Content-Type for a.
func (a accept) contentType() string {
	switch a.kind {
	case mediaObject:
		if a.stripNulls {
			return "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"
		}
		return "application/vnd.pgrst.object+json; charset=utf-8"
	case mediaCSV:
		return "text/csv; charset=utf-8"
	case mediaGeoJSON:
		return "application/geo+json; charset=utf-8"
	case mediaOpenAPI:
		return "application/openapi+json; charset=utf-8"
	case mediaCustom:
		return a.custom
	case mediaPlan:
		f := map[media]string{mediaJSON: "application/json", mediaObject: "application/vnd.pgrst.object+json", mediaCSV: "text/csv"}[a.planFor]
		if a.planJSON {
			return `application/vnd.pgrst.plan+json; for="` + f + `"; charset=utf-8`
		}
		return `application/vnd.pgrst.plan+text; for="` + f + `"; charset=utf-8`
	}
	if a.stripNulls {
		return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// rangeHeader parses "Range: a-b" / "a-" (an optional "items=" is allowed)
// with PostgREST's grammar: decimal digits only, anything else is ignored.
// Bounds beyond int64 read as math.MaxInt64 (past every row).
func rangeHeader(h string) (lo int64, hi *int64, ok bool) {
	h = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(h), "items="))
	a, b, found := strings.Cut(h, "-")
	if !found {
		return 0, nil, false
	}
	l, ok := httpx.ParseDigits(a)
	if !ok {
		return 0, nil, false
	}
	if b == "" {
		return l, nil, true
	}
	u, ok := httpx.ParseDigits(b)
	if !ok {
		return 0, nil, false
	}
	return l, &u, true
}
