package auth

import (
	"fmt"
	"strings"
	"testing"
)

func TestAdminAuthorization(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("x@example.com", "secret123")["access_token"].(string)
	wantErr(t, e.req("GET", "/admin/users", nil, ""), 401, "no_authorization", "")
	wantErr(t, e.req("GET", "/admin/users", nil, at), 403, "not_admin", "User not allowed")
	wantErr(t, e.req("GET", "/admin/users", nil, e.keys.AnonKey), 403, "not_admin", "User not allowed")
	wantErr(t, e.req("GET", "/admin/users", nil, "garbage"), 403, "bad_jwt", "")
	if r := e.req("GET", "/admin/users", nil, e.service()); r.Status != 200 {
		t.Fatalf("service role %d %s", r.Status, r.Body)
	}
	if r := e.req("GET", "/admin/dev/mailbox?email=x@example.com", nil, e.service()); r.Status != 200 {
		t.Fatalf("mailbox %d", r.Status)
	}
	wantErr(t, e.req("GET", "/admin/dev/mailbox", nil, at), 403, "not_admin", "")
}

func TestAdminUsersCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	svc := e.service()
	wantErr(t, e.req("POST", "/admin/users", `{}`, svc), 400, "validation_failed", "Cannot create a user without either an email or phone")
	wantErr(t, e.req("POST", "/admin/users", `{"email":"nope"}`, svc), 400, "validation_failed", "Unable to validate email address: invalid format")
	c := e.req("POST", "/admin/users", map[string]any{"email": "Adm@example.com", "password": "secret123", "email_confirm": true,
		"user_metadata": map[string]any{"name": "Ada"}, "app_metadata": map[string]any{"plan": "pro"}}, svc)
	u := c.json(t)
	if c.Status != 200 || u["email"] != "adm@example.com" || u["email_confirmed_at"] == nil ||
		u["app_metadata"].(map[string]any)["plan"] != "pro" || u["app_metadata"].(map[string]any)["provider"] != "email" {
		t.Fatalf("create %d %s", c.Status, c.Body)
	}
	wantErr(t, e.req("POST", "/admin/users", `{"email":"adm@example.com"}`, svc), 422, "email_exists", "A user with this email address has already been registered")
	id := u["id"].(string)
	if r := e.req("POST", "/token?grant_type=password", `{"email":"adm@example.com","password":"secret123"}`, ""); r.Status != 200 {
		t.Fatalf("sign in as created user %d %s", r.Status, r.Body)
	}
	if g := e.req("GET", "/admin/users/"+id, nil, svc); g.Status != 200 || g.json(t)["id"] != id {
		t.Fatalf("get %d", g.Status)
	}
	wantErr(t, e.req("GET", "/admin/users/00000000-0000-0000-0000-000000000001", nil, svc), 404, "user_not_found", "User not found")
	up := e.req("PUT", "/admin/users/"+id, map[string]any{"user_metadata": map[string]any{"name": nil, "x": 1},
		"app_metadata": map[string]any{"plan": "free"}, "ban_duration": "24h"}, svc)
	uu := up.json(t)
	if up.Status != 200 || uu["banned_until"] == nil || uu["user_metadata"].(map[string]any)["name"] != nil ||
		uu["app_metadata"].(map[string]any)["plan"] != "free" {
		t.Fatalf("update %d %s", up.Status, up.Body)
	}
	wantErr(t, e.req("POST", "/token?grant_type=password", `{"email":"adm@example.com","password":"secret123"}`, ""), 400, "user_banned", "")
	if r := e.req("PUT", "/admin/users/"+id, `{"ban_duration":"none"}`, svc); r.Status != 200 || r.json(t)["banned_until"] != nil {
		t.Fatalf("unban %d %s", r.Status, r.Body)
	}
	if r := e.req("DELETE", "/admin/users/"+id, `{"should_soft_delete":false}`, svc); r.Status != 200 || string(r.Body) != "{}\n" {
		t.Fatalf("delete %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("GET", "/admin/users/"+id, nil, svc), 404, "user_not_found", "")
}

func TestAdminListPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for i := range 5 {
		if r := e.req("POST", "/admin/users", map[string]any{"email": fmt.Sprintf("p%d@example.com", i)}, e.service()); r.Status != 200 {
			t.Fatal(r.Status)
		}
	}
	r := e.req("GET", "/admin/users?page=1&per_page=2", nil, e.service())
	m := r.json(t)
	if r.Status != 200 || len(m["users"].([]any)) != 2 || m["aud"] != "authenticated" || r.Header.Get("X-Total-Count") != "5" {
		t.Fatalf("list %d %v %s", r.Status, r.Header, r.Body)
	}
	if got := r.Header.Get("Link"); got != `</admin/users?page=2&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last"` {
		t.Fatalf("Link = %s", got)
	}
	last := e.req("GET", "/admin/users?page=3&per_page=2", nil, e.service())
	if len(last.json(t)["users"].([]any)) != 1 || strings.Contains(last.Header.Get("Link"), "next") {
		t.Fatalf("last page %s %s", last.Header.Get("Link"), last.Body)
	}
	if d := e.req("GET", "/admin/users?page=&per_page=", nil, e.service()); len(d.json(t)["users"].([]any)) != 5 {
		t.Fatal("defaults")
	}
	wantErr(t, e.req("GET", "/admin/users?page=-1", nil, e.service()), 400, "validation_failed", "")
	// Pages whose offset would overflow are empty pages, not server errors.
	for _, q := range []string{"page=9223372036854775807&per_page=2", "page=4611686018427387904&per_page=4", "page=2&per_page=9223372036854775807"} {
		far := e.req("GET", "/admin/users?"+q, nil, e.service())
		if far.Status != 200 || len(far.json(t)["users"].([]any)) != 0 {
			t.Errorf("%s: %d %s, want 200 with no users", q, far.Status, far.Body)
		}
	}
}

func TestAdminGenerateLinkAndInvite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	svc := e.service()
	g := e.req("POST", "/admin/generate_link?redirect_to=http://localhost:3000/x", map[string]any{"type": "magiclink", "email": "gl@example.com"}, svc)
	m := g.json(t)
	if g.Status != 200 || m["verification_type"] != "signup" || m["email"] != "gl@example.com" || len(m["email_otp"].(string)) != 6 ||
		!strings.HasPrefix(m["action_link"].(string), "http://api.test/auth/v1/verify?token="+m["hashed_token"].(string)+"&type=signup") ||
		m["redirect_to"] != "http://localhost:3000/x" {
		t.Fatalf("generate_link %d %s", g.Status, g.Body)
	}
	if len(e.mails("gl@example.com")) != 0 {
		t.Fatal("generate_link must not send mail")
	}
	// The generated OTP verifies.
	if v := e.req("POST", "/verify", map[string]any{"type": "signup", "email": "gl@example.com", "token": m["email_otp"]}, ""); v.Status != 200 {
		t.Fatalf("verify generated otp %d %s", v.Status, v.Body)
	}
	wantErr(t, e.req("POST", "/admin/generate_link", `{"type":"recovery","email":"none@example.com"}`, svc), 404, "user_not_found", "User with this email not found")
	wantErr(t, e.req("POST", "/admin/generate_link", `{"type":"bogus","email":"gl@example.com"}`, svc), 400, "validation_failed", "")
	wantErr(t, e.req("POST", "/admin/generate_link", `{"type":"signup","email":"gl@example.com","password":"secret123"}`, svc), 422, "email_exists", "")
	// Invite: user created with invited_at, invite mail with a link that confirms.
	i := e.req("POST", "/invite", `{"email":"inv@example.com","data":{"team":"a"}}`, svc)
	if i.Status != 200 || i.json(t)["invited_at"] == nil {
		t.Fatalf("invite %d %s", i.Status, i.Body)
	}
	mm := e.mails("inv@example.com")
	if len(mm) != 1 || mm[0].Type != "invite" || !strings.Contains(mm[0].Link, "type=invite") {
		t.Fatalf("invite mail %+v", mm)
	}
	if w := e.get(linkPath(mm[0].Link)); w.Code != 303 || !strings.Contains(w.Header().Get("Location"), "type=invite") {
		t.Fatalf("invite link %d %s", w.Code, w.Header().Get("Location"))
	}
	wantErr(t, e.req("POST", "/invite", `{"email":"inv@example.com"}`, svc), 422, "email_exists", "")
	var hasPassword bool
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT encrypted_password <> '' FROM auth.users WHERE email = 'inv@example.com'`).Scan(&hasPassword); err != nil || !hasPassword {
		t.Fatalf("an accepted invitation sets a random password (%v)", err)
	}
}

func TestAdminSoftDeleteAndLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	svc := e.service()
	s := e.signUp("soft@example.com", "secret123")
	id := s["user"].(map[string]any)["id"].(string)
	for _, tc := range []struct{ typ, extra, want string }{
		{"recovery", "", "recovery"},
		{"magiclink", "", "magiclink"},
		{"email_change_new", `,"new_email":"soft2@example.com"`, "email_change"},
		{"email_change_current", `,"new_email":"soft2@example.com"`, "email_change"},
	} {
		r := e.req("POST", "/admin/generate_link", `{"type":"`+tc.typ+`","email":"soft@example.com"`+tc.extra+`}`, svc)
		if r.Status != 200 || r.json(t)["verification_type"] != tc.want {
			t.Fatalf("%s: %d %s", tc.typ, r.Status, r.Body)
		}
	}
	if r := e.req("DELETE", "/admin/users/"+id, `{"should_soft_delete":true}`, svc); r.Status != 200 {
		t.Fatalf("soft delete %d %s", r.Status, r.Body)
	}
	g := e.req("GET", "/admin/users/"+id, nil, svc).json(t)
	if g["deleted_at"] == nil || g["email"] != "" {
		t.Fatalf("soft-deleted user %v", g)
	}
	wantErr(t, e.req("GET", "/user", nil, s["access_token"].(string)), 403, "session_not_found", "")
	// The address is free again.
	if r := e.req("POST", "/signup", `{"email":"soft@example.com","password":"secret123"}`, ""); r.Status != 200 {
		t.Fatalf("re-signup %d %s", r.Status, r.Body)
	}
}
