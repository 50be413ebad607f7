package rest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"mime"
	"net/url"
	"strings"
)

// payload is a request body normalised to a JSON array of objects, plus
// the keys that decide the written columns.
type payload struct {
	json    []byte   // always a JSON array
	keys    []string // key union in first-seen order
	objects int
	single  bool // the body was one object, not an array
	raw     []map[string]json.RawMessage
}

const maxBody = 64 << 20

func invalidJSON() *apiError {
	return pgrstErr(400, "PGRST102", "Empty or invalid json", nil, nil)
}

// readPayload reads the body by Content-Type. columns, when given, lifts
// the all-keys-must-match rule.
func readPayload(body io.Reader, contentType string, columnsGiven bool) (*payload, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxBody))
	if err != nil {
		return nil, err
	}
	mt := "application/json"
	if contentType != "" {
		if m, _, err := mime.ParseMediaType(contentType); err == nil {
			mt = m
		} else {
			mt = contentType
		}
	}
	switch mt {
	case "application/json":
		return jsonPayload(data, columnsGiven)
	case "text/csv":
		return csvPayload(data)
	case "application/x-www-form-urlencoded":
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
	}
	return nil, pgrstErr(400, "PGRST102", "Content-Type not acceptable: "+mt, nil, nil)
}

func jsonPayload(data []byte, columnsGiven bool) (*payload, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	p := &payload{}
	switch trimmed[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, invalidJSON()
		}
		p.single = true
		p.raw = []map[string]json.RawMessage{obj}
		p.json = append(append([]byte{'['}, trimmed...), ']')
	case '[':
		if err := json.Unmarshal(trimmed, &p.raw); err != nil {
			return nil, invalidJSON()
		}
		for _, o := range p.raw {
			if o == nil {
				return nil, invalidJSON()
			}
		}
		p.json = trimmed
	default:
		return nil, invalidJSON()
	}
	p.objects = len(p.raw)
	seen := map[string]bool{}
	for i, o := range p.raw {
		ks := sortedKeys(o)
		if i > 0 && !columnsGiven {
			if len(o) != len(p.keys) {
				return nil, pgrstErr(400, "PGRST102", "All object keys must match", nil, nil)
			}
			for _, k := range ks {
				if !seen[k] {
					return nil, pgrstErr(400, "PGRST102", "All object keys must match", nil, nil)
				}
			}
		}
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				p.keys = append(p.keys, k)
			}
		}
	}
	return p, nil
}

// sortedKeys returns o's keys sorted; the written column list follows the
// table's column order anyway, so statements stay cacheable.
func sortedKeys(o map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sortStrings(ks)
	return ks
}

// csvPayload turns CSV (header line first; NULL means null) into JSON.
func csvPayload(data []byte) (*payload, error) {
	r := csv.NewReader(bytes.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		if strings.Contains(err.Error(), "wrong number of fields") {
			return nil, pgrstErr(400, "PGRST102", "All lines must have same number of fields", nil, nil)
		}
		return nil, invalidJSON()
	}
	if len(recs) == 0 {
		return jsonPayload([]byte("[]"), false)
	}
	head := recs[0]
	rows := make([]map[string]any, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		m := make(map[string]any, len(head))
		for i, h := range head {
			if rec[i] == "NULL" {
				m[h] = nil
			} else {
				m[h] = rec[i]
			}
		}
		rows = append(rows, m)
	}
	b, _ := json.Marshal(rows)
	return jsonPayload(b, false)
}
