package auth

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("audit@example.com", "secret123")
	e.refresh(s["refresh_token"].(string))
	e.req("POST", "/logout", nil, s["access_token"].(string))
	rows, err := e.db.Admin.Query(t.Context(), `SELECT payload->>'action', payload->>'log_type', payload->>'actor_username', ip_address
		FROM auth.audit_log_entries ORDER BY 1`) // the test clock stands still: order by action
	if err != nil {
		t.Fatal(err)
	}
	var got [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := [][4]string{
		{"login", "account", "audit@example.com", "10.0.0.1"},
		{"logout", "account", "audit@example.com", "10.0.0.1"},
		{"token_refreshed", "token", "audit@example.com", "10.0.0.1"},
		{"token_revoked", "token", "audit@example.com", "10.0.0.1"},
		{"user_signedup", "team", "audit@example.com", "10.0.0.1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("audit log (-want +got):\n%s", diff)
	}
}
