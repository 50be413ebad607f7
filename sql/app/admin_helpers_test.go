package app_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// rows runs a query as c and returns its rows as JSON objects.
func (e *env) rows(c caller, sql string, args ...any) ([]map[string]any, error) {
	var raw string
	err := e.query(c, `SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]')::text FROM (`+sql+`) r`, args, &raw)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		e.t.Fatalf("decode %s: %v", raw, err)
	}
	return out, nil
}

// mustRows is rows that fails the test on error.
func (e *env) mustRows(c caller, sql string, args ...any) []map[string]any {
	e.t.Helper()
	r, err := e.rows(c, sql, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return r
}

// mustJSON is callJSON that fails the test on error.
func (e *env) mustJSON(c caller, sql string, args ...any) map[string]any {
	e.t.Helper()
	m, err := e.callJSON(c, sql, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return m
}

// state is a fingerprint of everything an admin action could change: the
// audit log, accounts, tracks, money, cash-outs, invites, KYC and
// notifications. Equal fingerprints mean nothing changed.
func (e *env) state() string {
	e.t.Helper()
	return scalar[string](e, `SELECT concat_ws(' | ',
		(SELECT count(*) FROM public.admin_audit_log),
		(SELECT string_agg(concat(p.id, p.is_suspended, p.suspended_reason, r.role, p.is_verified), ',' ORDER BY p.id)
		   FROM public.public_profiles p LEFT JOIN public.user_roles r ON r.user_id = p.id),
		(SELECT string_agg(concat(id, status, is_sponsored, sponsor_id), ',' ORDER BY id) FROM public.tracks),
		(SELECT string_agg(concat(id, balance), ',' ORDER BY id) FROM public.wallets),
		(SELECT count(*) FROM public.transactions),
		(SELECT string_agg(concat(id, status), ',' ORDER BY id) FROM public.cashout_requests),
		(SELECT string_agg(concat(id, status), ',' ORDER BY id) FROM public.sponsor_artist_invites),
		(SELECT string_agg(concat(id, status), ',' ORDER BY id) FROM public.kyc_submissions),
		(SELECT string_agg(concat(id, kyc_status), ',' ORDER BY id) FROM public.artist_profiles),
		(SELECT count(*) FROM public.notifications))`)
}

// auditRows lists the audit log's rows for an action, oldest first.
func (e *env) auditRows(action string) []map[string]any {
	e.t.Helper()
	raw := scalar[string](e, `SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.id), '[]')::text FROM public.admin_audit_log a WHERE action = $1`, action)
	var out []map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// requestCashout makes an artist ask for amount and returns the request id.
func (e *env) requestCashout(artist string, amount int) string {
	e.t.Helper()
	m := e.mustJSON(user(artist), `SELECT public.request_cashout($1, 'Zenith Bank', '0123456789', 'Ada Artist')::text`, amount)
	return m["id"].(string)
}

// submitKYC files a KYC submission for an artist and returns its id.
func (e *env) submitKYC(artist string) string {
	e.t.Helper()
	m := e.mustJSON(user(artist), `SELECT public.submit_kyc('Ada Artist', 'passport', 'A1234567')::text`)
	return m["id"].(string)
}

// walk pages through a keyset list: next builds the arguments for the page
// after the given last row (nil for the first page). It returns every row in
// order and fails on a repeated key.
func walk(t *testing.T, e *env, c caller, sql string, key string, next func(last map[string]any) []any) []map[string]any {
	t.Helper()
	var all []map[string]any
	seen := map[string]bool{}
	var last map[string]any
	for i := 0; i < 100; i++ {
		page := e.mustRows(c, sql, next(last)...)
		if len(page) == 0 {
			return all
		}
		for _, r := range page {
			k := fmt.Sprint(r[key])
			if seen[k] {
				t.Fatalf("row %s returned twice", k)
			}
			seen[k] = true
		}
		all = append(all, page...)
		last = page[len(page)-1]
	}
	t.Fatal("pagination did not end")
	return nil
}

// ts parses a timestamp from a JSON row.
func ts(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %v: %v", v, err)
	}
	return tm
}
