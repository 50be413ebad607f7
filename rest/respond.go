package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Stage 5, respond: status, headers and body. The body is the text
// Postgres built; only headers are computed here, in PostgREST's order and
// spelling, since clients (postgrest-js) parse them. Each answer is a
// reply, which ServeHTTP sends: this stage is the only one that shapes
// what goes out, and nothing before it holds the writer.

// reply is a built answer: status, headers and a body with its media
// type (Content-Type unless response.headers set one).
type reply struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
}

// newReply starts an answer with no headers yet.
func newReply(status int) *reply { return &reply{status: status, header: http.Header{}} }

// withBody sets the answer's body and its media type.
func (rp *reply) withBody(contentType string, body []byte) *reply {
	rp.contentType, rp.body = contentType, body
	return rp
}

// send writes rep, the final response.
func send(w http.ResponseWriter, r *http.Request, rep *reply) {
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	// A Content-Type set through response.headers wins, as in PostgREST.
	if rep.contentType != "" && (len(rep.body) > 0 || r.Method == http.MethodHead) && h.Get("Content-Type") == "" {
		h.Set("Content-Type", rep.contentType)
	}
	// HEAD announces the length a GET would send, and sends nothing.
	h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	if r.Method != http.MethodHead && len(rep.body) > 0 {
		_, _ = w.Write(rep.body)
	}
}

// respondRead answers a read: 200, or 206 when the page is not the whole
// count, with Content-Range (and Content-Location) as PostgREST sends them.
// An offset past a known total is 416, found only now that the count is.
func (s *Service) respondRead(rc *reqCtx, p *readPlan, res *result) (*reply, error) {
	if res.plan {
		return respondPlan(p.acc, res), nil
	}
	lower := int64(0)
	if p.root.offset != nil {
		lower = *p.root.offset
	}
	rep := newReply(http.StatusOK)
	if res.total != nil {
		if lower > *res.total {
			return nil, rangeErr("An offset of " + strconv.FormatInt(lower, 10) + " was requested, but there are only " +
				strconv.FormatInt(*res.total, 10) + " rows.")
		}
		if res.page < *res.total {
			rep.status = http.StatusPartialContent
		}
	}
	rep.header.Set("Content-Range", contentRange(lower, res.page, res.total))
	if loc := contentLocation(rc); len(loc) <= maxContentLocation {
		rep.header.Set("Content-Location", loc)
	}
	s.preferenceApplied(rc, rep.header, false, false)
	s.profileHeader(rc, rep.header)
	if err := applyResponseGUCs(rep, res); err != nil {
		return nil, err
	}
	return rep.withBody(p.acc.contentType(), res.body), nil
}

// respondPlan sends the EXPLAIN text of a vnd.pgrst.plan request as it is,
// without a read's headers: Content-Range and the rest describe rows, and
// none were read.
func respondPlan(acc accept, res *result) *reply {
	return newReply(http.StatusOK).withBody(acc.contentType(), res.body)
}

// respondInsert answers POST: 201, except an upsert that only updated rows
// (200), with Content-Range */n and, for return=headers-only, Location
// naming the one created row by its key, as PostgREST does.
func (s *Service) respondInsert(rc *reqCtx, p *writePlan, res *result) (*reply, error) {
	if res.plan {
		return respondPlan(p.acc, res), nil
	}
	rep := newReply(http.StatusCreated)
	if p.merges && res.inserted != nil && *res.inserted == 0 && p.payload.objects > 0 {
		rep.status = http.StatusOK
	}
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	rep.header.Set("Content-Range", "*/"+totalString(total))
	if p.headersOnly && res.page == 1 && len(p.t.PK) > 0 {
		if loc := location(p.t, res.body); loc != "" {
			rep.header.Set("Location", loc)
		}
	}
	s.preferenceApplied(rc, rep.header, true, p.upsert)
	return s.finishWrite(rc, p, rep, res)
}

// respondChange answers PATCH and DELETE. PATCH reports the range of rows
// it touched (0-2/*), DELETE only the total (*/n), as PostgREST does.
func (s *Service) respondChange(rc *reqCtx, p *writePlan, res *result) (*reply, error) {
	if res.plan {
		return respondPlan(p.acc, res), nil
	}
	var total *int64
	if rc.prefs.count != "" {
		total = &res.page
	}
	rep := newReply(http.StatusOK)
	if rc.r.Method == http.MethodPatch {
		rep.header.Set("Content-Range", contentRange(0, res.page, total))
	} else {
		rep.header.Set("Content-Range", "*/"+totalString(total))
	}
	s.preferenceApplied(rc, rep.header, true, false)
	return s.finishWrite(rc, p, rep, res)
}

// respondPut answers PUT: 201 when the row was created, else 200; without
// return=representation 204 whether it inserted or updated.
func (s *Service) respondPut(rc *reqCtx, p *writePlan, res *result) (*reply, error) {
	if res.plan {
		return respondPlan(p.acc, res), nil
	}
	rep := newReply(http.StatusOK)
	if res.inserted != nil && *res.inserted > 0 {
		rep.status = http.StatusCreated
	}
	if !p.rep {
		rep.status = http.StatusNoContent
	}
	s.preferenceApplied(rc, rep.header, true, false)
	s.profileHeader(rc, rep.header)
	if err := applyResponseGUCs(rep, res); err != nil {
		return nil, err
	}
	if !p.rep {
		return rep, nil
	}
	return rep.withBody(p.acc.contentType(), res.body), nil
}

// contentRange renders lower-upper/total, PostgREST's Content-Range: total
// is * unless Prefer: count asked for it, and an empty page is */total
// because there is no range to name.
func contentRange(lower int64, n int64, total *int64) string {
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	if n > 0 && (total == nil || *total != 0) {
		return strconv.FormatInt(lower, 10) + "-" + strconv.FormatInt(lower+n-1, 10) + "/" + t
	}
	return "*/" + t
}

// contentLocation is /T?<params sorted by name>. PostgREST sends it
// whatever its length (its HTTP server refuses request heads over 50 KiB);
// a long one is left out here, see maxContentLocation.
func contentLocation(rc *reqCtx) string {
	// Sorted on a copy: the plan read the parameters in request order.
	ps := append([]param(nil), rc.params...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	var sb strings.Builder
	sb.WriteString("/" + rc.route.table)
	if len(ps) > 0 {
		sb.WriteByte('?')
		for i, p := range ps {
			if i > 0 {
				sb.WriteByte('&')
			}
			sb.WriteString(p.key + "=" + p.value)
		}
	}
	return sb.String()
}

// preferenceApplied renders the honoured Prefer tokens in PostgREST order.
// Only preferences that changed the answer are echoed, so a client can tell
// a server that ignored one: resolution only on an upsert, missing and
// return only on writes, max-affected only where it is enforced.
func (s *Service) preferenceApplied(rc *reqCtx, h http.Header, write bool, resolution bool) {
	p := rc.prefs
	var out []string
	if resolution && p.resolution != "" {
		out = append(out, "resolution="+p.resolution)
	}
	if write && p.missing != "" {
		out = append(out, "missing="+p.missing)
	}
	if write && p.ret != "" {
		out = append(out, "return="+p.ret)
	}
	if p.count != "" {
		out = append(out, "count="+p.count)
	}
	if rc.txApplied {
		out = append(out, "tx="+p.tx)
	}
	if p.handling != "" {
		out = append(out, "handling="+p.handling)
	}
	if p.timezone != "" && rc.cache.Timezones[p.timezone] {
		out = append(out, "timezone="+p.timezone)
	}
	if p.handling == "strict" && p.maxAffected != nil && (rc.r.Method == http.MethodPatch || rc.r.Method == http.MethodDelete || rc.route.fn != "") {
		out = append(out, "max-affected="+strconv.FormatInt(*p.maxAffected, 10))
	}
	if len(out) > 0 {
		h.Set("Preference-Applied", strings.Join(out, ", "))
	}
}

// profileHeader names the schema that answered (Content-Profile) when the
// client picked one or more than one is exposed, as PostgREST does; with a
// single schema there is nothing to disambiguate.
func (s *Service) profileHeader(rc *reqCtx, h http.Header) {
	if rc.profileSent || len(rc.cfg.Schemas) > 1 {
		h.Set("Content-Profile", rc.schema)
	}
}

// applyResponseGUCs honours response.headers and response.status, which a
// function or the pre-request hook may set with set_config; mainSQL reads
// them back in the same statement. A malformed value is the server's error
// (PGRST111/112), since it comes from the database's code.
func applyResponseGUCs(rep *reply, res *result) error {
	h := rep.header
	if res.headers != nil {
		var list []map[string]any
		if err := json.Unmarshal([]byte(*res.headers), &list); err != nil {
			return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
		}
		for _, m := range list {
			if len(m) != 1 {
				return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
			}
			for k, v := range m {
				sv, ok := v.(string)
				if !ok {
					return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
				}
				h.Set(k, sv)
			}
		}
	}
	if res.status != nil {
		n, err := strconv.Atoi(*res.status)
		if err != nil || n < 100 || n > 599 {
			return pgrstErr(500, "PGRST112", "response.status guc must be a valid status code", nil, nil)
		}
		rep.status = n
	}
	return nil
}

// contentType renders the response Content-Type for a, spelled as
// PostgREST spells it (postgrest-js compares some of them as strings).
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

// totalString is the total of a write's Content-Range: */* without a count.
func totalString(t *int64) string {
	if t == nil {
		return "*"
	}
	return strconv.FormatInt(*t, 10)
}

// location builds /T?pk=eq.v from the returned primary key values; a null
// key is is.null, since eq.null would compare with the text "null".
func location(t *Table, body []byte) string {
	var rows []map[string]any
	if json.Unmarshal(body, &rows) != nil || len(rows) != 1 {
		return ""
	}
	parts := make([]string, len(t.PK))
	for i, c := range t.PK {
		v := rows[0][c]
		if v == nil {
			parts[i] = url.QueryEscape(c) + "=is.null"
		} else {
			parts[i] = url.QueryEscape(c) + "=eq." + url.QueryEscape(fmt.Sprint(v))
		}
	}
	return "/" + t.Name + "?" + strings.Join(parts, "&")
}

// finishWrite completes a write's answer: Content-Profile, the response
// GUCs, and the body: the representation when asked for, else nothing, and
// then a PATCH or DELETE answers 204 rather than 200 (POST keeps 201 or
// 200, which says whether rows were created).
func (s *Service) finishWrite(rc *reqCtx, p *writePlan, rep *reply, res *result) (*reply, error) {
	s.profileHeader(rc, rep.header)
	if err := applyResponseGUCs(rep, res); err != nil {
		return nil, err
	}
	if !p.rep {
		if rep.status == http.StatusOK && rc.r.Method != http.MethodPost {
			rep.status = http.StatusNoContent
		}
		return rep, nil
	}
	return rep.withBody(p.acc.contentType(), res.body), nil
}
