package rest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// payload is a request body normalised to a JSON array of objects, plus
// the keys that decide the written columns. The array goes to Postgres as
// one value (json_populate_recordset expands it there): Go never decodes
// the rows, so a body costs a small multiple of its size.
type payload struct {
	json    []byte   // always a JSON array
	keys    []string // the first object's keys, sorted (unset with ?columns=)
	objects int
	single  bool   // the body was one object, not an array
	first   []byte // the first object
}

// csvGrowth bounds the JSON a CSV body becomes (every line repeats the
// header's names), in multiples of the body cap.
const csvGrowth = 4

func invalidJSON() *apiError {
	return pgrstErr(400, "PGRST102", "Empty or invalid json", nil, nil)
}

// payloadTooLarge answers a body over the cap. PostgREST has no such
// error (its proxy refuses large bodies): the shape is its own, the code
// its "invalid body" one, the message the Supabase gateway's.
func payloadTooLarge(limit int64) *apiError {
	return pgrstErr(http.StatusRequestEntityTooLarge, "PGRST102", "Payload too large",
		"The request body is larger than the limit of "+strconv.FormatInt(limit, 10)+" bytes", nil)
}

// readBody reads the request body, at most limit bytes. A larger one is
// refused before anything of it is parsed, whether its length was
// announced or not; a body cut short (the client went away) is the
// client's error. ServeHTTP armed the same cap on r.Body with the writer,
// so net/http also closes the connection after an over-long body.
func readBody(rc *reqCtx, limit int64) ([]byte, error) {
	r := rc.r
	// An announced length over the cap is refused before any byte is
	// read, so the client learns at once.
	if r.ContentLength > limit {
		return nil, payloadTooLarge(limit)
	}
	body := io.LimitReader(r.Body, limit+1)
	var data []byte
	var err error
	// With a known length one exact allocation suffices; ReadAll's
	// doubling would cost up to twice the body.
	if r.ContentLength >= 0 {
		data = make([]byte, r.ContentLength)
		_, err = io.ReadFull(body, data)
	} else {
		data, err = io.ReadAll(body)
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || int64(len(data)) > limit:
		return nil, payloadTooLarge(limit)
	case err != nil:
		return nil, invalidJSON()
	}
	return data, nil
}

// mediaType is the request's Content-Type without parameters
// (application/json when absent).
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "application/json"
	}
	if m, _, err := mime.ParseMediaType(ct); err == nil {
		return m
	}
	return ct
}

// readPayload reads the body by Content-Type. columns, when given, lifts
// the all-keys-must-match rule.
func readPayload(rc *reqCtx, columnsGiven bool) (*payload, error) {
	limit := rc.cfg.MaxBodyBytes
	data, err := readBody(rc, limit)
	if err != nil {
		return nil, err
	}
	switch mt := mediaType(rc.r); mt {
	case "application/json":
		return jsonPayload(data, columnsGiven)
	case "text/csv":
		return csvPayload(data, limit)
	case "application/x-www-form-urlencoded":
		// A form is one object whose values are strings: Postgres casts
		// them to the column types, as it does for URL values.
		vals, err := url.ParseQuery(string(data))
		if err != nil {
			return nil, invalidJSON()
		}
		obj := map[string]string{}
		for k, v := range vals {
			obj[k] = v[0]
		}
		b, _ := json.Marshal(obj)
		return jsonPayload(b, columnsGiven)
	default:
		return nil, pgrstErr(400, "PGRST102", "Content-Type not acceptable: "+mt, nil, nil)
	}
}

// jsonPayload checks a JSON body and finds its shape without decoding it.
// An object becomes a one-element array; in an array every object must have
// the first one's keys (PGRST102 otherwise), because the statement's column
// list comes from them, unless ?columns= names the columns instead.
func jsonPayload(data []byte, columnsGiven bool) (*payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if !json.Valid(trimmed) {
		return nil, invalidJSON()
	}
	p := &payload{}
	switch trimmed[0] {
	case '{':
		// Wrapped in brackets by hand: the bytes are not re-encoded.
		p.single, p.objects, p.first = true, 1, trimmed
		p.json = make([]byte, 0, len(trimmed)+2)
		p.json = append(append(append(p.json, '['), trimmed...), ']')
		p.keys = objectKeys(trimmed)
		return p, nil
	case '[':
		p.json = trimmed
	default:
		return nil, invalidJSON()
	}
	mismatch := pgrstErr(400, "PGRST102", "All object keys must match", nil, nil)
	var index map[string]int
	var stamp []int
	err := eachElement(trimmed, func(obj []byte) error {
		if obj[0] != '{' {
			return invalidJSON()
		}
		p.objects++
		if p.objects == 1 {
			p.first = obj
			if columnsGiven {
				return nil
			}
			p.keys = objectKeys(obj)
			index = make(map[string]int, len(p.keys))
			for i, k := range p.keys {
				index[k] = i
			}
			stamp = make([]int, len(p.keys))
			return nil
		}
		if columnsGiven {
			return nil
		}
		// Same key set as the first object: every key known, each of
		// them present (duplicates count once).
		found := 0
		if err := eachKey(obj, func(raw []byte) error {
			i, ok := index[string(raw)]
			if !ok {
				if i, ok = index[keyString(raw)]; !ok {
					return mismatch
				}
			}
			if stamp[i] != p.objects {
				stamp[i] = p.objects
				found++
			}
			return nil
		}); err != nil {
			return err
		}
		if found != len(p.keys) {
			return mismatch
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// firstScalars decodes the first object's top-level values as the text a
// URL would carry (PUT compares them with the URL's primary key), so that
// {"id": 5} matches id=eq.5 and {"id": "a"} matches id=eq.a.
func (p *payload) firstScalars() map[string]string {
	var obj map[string]json.RawMessage
	if p.first != nil {
		_ = json.Unmarshal(p.first, &obj)
	}
	out := make(map[string]string, len(obj))
	for k, raw := range obj {
		var v any
		switch err := json.Unmarshal(raw, &v); {
		case err != nil:
			out[k] = string(raw)
		case v == nil:
			out[k] = "null"
		default:
			if s, ok := v.(string); ok {
				out[k] = s
			} else {
				out[k] = strings.TrimSpace(string(raw))
			}
		}
	}
	return out
}

// csvPayload turns CSV (header line first; NULL means null) into a JSON
// array, one line at a time. The JSON may grow to csvGrowth times the body
// cap: past that the body is too large.
func csvPayload(data []byte, limit int64) (*payload, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	csvErr := func(err error) error {
		if errors.Is(err, csv.ErrFieldCount) {
			return pgrstErr(400, "PGRST102", "All lines must have same number of fields", nil, nil)
		}
		return invalidJSON()
	}
	// An empty CSV body writes nothing, like an empty JSON array.
	head, err := r.Read()
	if err == io.EOF {
		return jsonPayload([]byte("[]"), false)
	}
	if err != nil {
		return nil, csvErr(err)
	}
	// Each name is encoded once, with its colon, and copied per line.
	names := make([][]byte, len(head))
	for i, h := range head {
		names[i] = append(appendJSONString(nil, h), ':')
	}
	out := make([]byte, 0, 2*len(data)+2)
	out = append(out, '[')
	for n := 0; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, '{')
		for i, name := range names {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, name...)
			// PostgREST's CSV convention: the bare word NULL is SQL
			// NULL; every other field is a string Postgres casts.
			if rec[i] == "NULL" {
				out = append(out, "null"...)
			} else {
				out = appendJSONString(out, rec[i])
			}
		}
		out = append(out, '}')
		if int64(len(out)) > csvGrowth*limit {
			return nil, payloadTooLarge(limit)
		}
	}
	return jsonPayload(append(out, ']'), false)
}
