package studio

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestRolesEditable: a role is created (LOGIN with a password kept only as
// a SCRAM secret), its attributes and memberships change, and it is
// dropped; Basalt's own roles, superusers and the attributes that reach
// past RLS are refused with a clear error and change nothing.
func TestRolesEditable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	ctx := context.Background()
	name := e.db.Name + "_reporter"
	t.Cleanup(func() { _, _ = e.db.Admin.Exec(context.Background(), `DROP ROLE IF EXISTS `+name+`, `+name+`_2`) })
	type role struct {
		ID              int64    `json:"id"`
		Name            string   `json:"name"`
		CanLogin        bool     `json:"can_login"`
		InheritRole     bool     `json:"inherit_role"`
		ConnectionLimit int      `json:"connection_limit"`
		MemberOf        []string `json:"member_of"`
		Reserved        bool     `json:"reserved"`
	}
	var r role
	const password = "reports-only-please"
	c.json("POST", "/pg/roles", map[string]any{"name": name, "can_login": true, "password": password, "member_of": []string{"authenticated"}, "connection_limit": 5}, 201, &r)
	if r.Name != name || !r.CanLogin || r.ConnectionLimit != 5 || strings.Join(r.MemberOf, ",") != "authenticated" || r.Reserved {
		t.Fatalf("created %+v", r)
	}
	var secret string
	if err := e.db.Admin.QueryRow(ctx, `SELECT rolpassword FROM pg_authid WHERE rolname = $1`, name).Scan(&secret); err != nil || !scramMatches(secret, password) {
		t.Fatalf("the stored secret %q does not verify the password (%v)", secret, err)
	}
	path := "/pg/roles/" + strconv.FormatInt(r.ID, 10)
	c.json("PATCH", path, map[string]any{"can_login": false, "member_of": []string{"anon"}, "inherit_role": false, "name": name + "_2"}, 200, &r)
	if r.CanLogin || r.InheritRole || strings.Join(r.MemberOf, ",") != "anon" || r.Name != name+"_2" {
		t.Fatalf("updated %+v", r)
	}
	var until string
	c.json("PATCH", path, map[string]any{"valid_until": "2030-01-02T03:04:05+02:00"}, 200, nil)
	if err := e.db.Admin.QueryRow(ctx, `SELECT to_char(rolvaliduntil AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM pg_roles WHERE rolname = $1`, name+"_2").Scan(&until); err != nil || until != "2030-01-02 01:04:05" {
		t.Fatalf("valid until %q (%v)", until, err)
	}
	// Refused: attributes past RLS, a superuser's membership, reserved names.
	for _, bad := range []map[string]any{{"can_bypass_rls": true}, {"is_superuser": true}, {"can_create_role": true}, {"connection_limit": -5}, {"valid_until": "soon"}} {
		c.json("PATCH", path, bad, 400, nil)
	}
	c.json("PATCH", path, map[string]any{"member_of": []string{"postgres"}}, 400, nil)
	c.json("PATCH", path, map[string]any{"member_of": []string{"no_such_role_at_all"}}, 404, nil)
	c.json("PATCH", path, map[string]any{"name": "supabase_admin"}, 403, nil)
	var list []role
	c.json("GET", "/pg/roles", nil, 200, &list)
	ids := map[string]role{}
	for _, x := range list {
		ids[x.Name] = x
	}
	if got := ids[name+"_2"]; got.CanLogin || strings.Join(got.MemberOf, ",") != "anon" {
		t.Fatalf("after refused edits %+v", got)
	}
	for _, reserved := range []string{"anon", "authenticated", "service_role", "authenticator", "postgres"} {
		x, ok := ids[reserved]
		if !ok || !x.Reserved {
			t.Fatalf("%s listed as %+v", reserved, x)
		}
		p := "/pg/roles/" + strconv.FormatInt(x.ID, 10)
		res := c.do("PATCH", p, map[string]any{"can_login": true})
		if body := readAll(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "is reserved") {
			t.Errorf("PATCH %s: %d %s", reserved, res.StatusCode, body)
		}
		c.json("DELETE", p, nil, 403, nil)
	}
	for _, taken := range []string{"service_role", "supabase_admin", "pg_monitor2", "Anon"} {
		c.json("POST", "/pg/roles", map[string]any{"name": taken}, 403, nil)
	}
	var anonLogin bool
	if err := e.db.Admin.QueryRow(ctx, `SELECT rolcanlogin FROM pg_roles WHERE rolname = 'anon'`).Scan(&anonLogin); err != nil || anonLogin {
		t.Fatalf("anon can log in (%v)", err)
	}
	c.json("DELETE", path, nil, 200, nil)
	c.json("DELETE", path, nil, 404, nil)
}

// scramMatches says whether a SCRAM-SHA-256 secret verifies password.
func scramMatches(secret, password string) bool {
	rest, ok := strings.CutPrefix(secret, "SCRAM-SHA-256$")
	if !ok {
		return false
	}
	iterSalt, keys, _ := strings.Cut(rest, "$")
	iterText, saltText, _ := strings.Cut(iterSalt, ":")
	storedText, _, _ := strings.Cut(keys, ":")
	iter, err1 := strconv.Atoi(iterText)
	salt, err2 := base64.StdEncoding.DecodeString(saltText)
	stored, err3 := base64.StdEncoding.DecodeString(storedText)
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, sha256.Size)
	if err != nil {
		return false
	}
	h := hmac.New(sha256.New, salted)
	h.Write([]byte("Client Key"))
	sum := sha256.Sum256(h.Sum(nil))
	return bytes.Equal(sum[:], stored)
}

// TestPublicationsEditable: a publication is created with tables and
// events, its tables added and removed and its events toggled, and it is
// dropped; supabase_realtime's tables change but it is never renamed or
// dropped; a FOR ALL TABLES publication has no list to change.
func TestPublicationsEditable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	e.exec(`CREATE TABLE public.t1 (id int PRIMARY KEY); CREATE TABLE public.t2 (id int PRIMARY KEY)`)
	type pub struct {
		ID              int64  `json:"id"`
		Name            string `json:"name"`
		PublishInsert   bool   `json:"publish_insert"`
		PublishUpdate   bool   `json:"publish_update"`
		PublishDelete   bool   `json:"publish_delete"`
		PublishTruncate bool   `json:"publish_truncate"`
		Tables          *[]struct{ Name, Schema string }
	}
	names := func(p pub) string {
		if p.Tables == nil {
			return "ALL"
		}
		var s []string
		for _, t := range *p.Tables {
			s = append(s, t.Schema+"."+t.Name)
		}
		return strings.Join(s, ",")
	}
	var p pub
	c.json("POST", "/pg/publications", map[string]any{"name": "pub_a", "tables": []string{"t1", "public.t2"}, "publish_truncate": false}, 201, &p)
	if names(p) != "public.t1,public.t2" || !p.PublishInsert || !p.PublishDelete || p.PublishTruncate {
		t.Fatalf("created %+v (%s)", p, names(p))
	}
	path := "/pg/publications/" + strconv.FormatInt(p.ID, 10)
	c.json("PATCH", path, map[string]any{"tables": []string{"t2"}, "publish_update": false}, 200, &p)
	if names(p) != "public.t2" || p.PublishUpdate || !p.PublishInsert || p.PublishTruncate {
		t.Fatalf("updated %+v (%s)", p, names(p))
	}
	c.json("PATCH", path, map[string]any{"tables": []string{}}, 200, &p)
	if names(p) != "" {
		t.Fatalf("emptied: %s", names(p))
	}
	c.json("PATCH", path, map[string]any{"tables": []string{"no_such_table"}}, 400, nil)
	c.json("PATCH", path, map[string]any{"tables": []string{"public."}}, 400, nil)
	c.json("DELETE", path, nil, 200, nil)
	c.json("DELETE", path, nil, 404, nil)

	var list []pub
	c.json("GET", "/pg/publications", nil, 200, &list)
	var rt pub
	for _, x := range list {
		if x.Name == "supabase_realtime" {
			rt = x
		}
	}
	if rt.ID == 0 {
		t.Fatalf("no supabase_realtime in %+v", list)
	}
	rtPath := "/pg/publications/" + strconv.FormatInt(rt.ID, 10)
	c.json("PATCH", rtPath, map[string]any{"tables": []string{"t1"}}, 200, &rt)
	if names(rt) != "public.t1" {
		t.Fatalf("supabase_realtime publishes %s", names(rt))
	}
	c.json("PATCH", rtPath, map[string]any{"name": "renamed"}, 403, nil)
	c.json("DELETE", rtPath, nil, 403, nil)

	var all pub
	c.json("POST", "/pg/publications", map[string]any{"name": "pub_all", "tables": nil}, 201, &all)
	if names(all) != "ALL" {
		t.Fatalf("pub_all publishes %s", names(all))
	}
	c.json("PATCH", "/pg/publications/"+strconv.FormatInt(all.ID, 10), map[string]any{"tables": []string{"t1"}}, 400, nil)
	c.json("POST", "/pg/publications", map[string]any{"tables": []string{"t1"}}, 400, nil)
}
