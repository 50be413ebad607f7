package auth

import (
	"strings"
	"testing"
)

func TestCustomAccessTokenHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true; c.CustomAccessTokenHook = "public.access_token_hook" })
	e.exec(`CREATE TABLE public.roles (user_id uuid PRIMARY KEY, role text)`)
	e.exec(`CREATE FUNCTION public.access_token_hook(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
		DECLARE claims jsonb := event->'claims';
		BEGIN
		  IF claims->>'email' = 'blocked@example.com' THEN
		    RETURN jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'Account blocked'));
		  END IF;
		  IF claims->>'email' = 'broken@example.com' THEN
		    RETURN jsonb_build_object('claims', claims - 'session_id');
		  END IF;
		  claims := jsonb_set(claims, '{user_role}', to_jsonb(coalesce(
		    (SELECT role FROM public.roles WHERE user_id = (event->>'user_id')::uuid), 'listener')));
		  claims := jsonb_set(claims, '{auth_method}', event->'authentication_method');
		  RETURN jsonb_build_object('claims', claims);
		END $$`)
	s := e.signUp("hook@example.com", "secret123")
	c, err := e.keys.Verify(s["access_token"].(string), e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	if c.Map["user_role"] != "listener" || c.Map["auth_method"] != "password" {
		t.Fatalf("claims %v", c.Map)
	}
	e.exec(`INSERT INTO public.roles VALUES ($1, 'artist')`, s["user"].(map[string]any)["id"])
	r := e.refresh(s["refresh_token"].(string))
	c, _ = e.keys.Verify(r.json(t)["access_token"].(string), e.clock.now())
	if c.Map["user_role"] != "artist" || c.Map["auth_method"] != "token_refresh" {
		t.Fatalf("refreshed claims %v", c.Map)
	}
	// The hook's error is the answer, and nothing is created.
	b := e.req("POST", "/signup", `{"email":"blocked@example.com","password":"secret123"}`, "")
	if b.Status != 403 || b.json(t)["message"] != "Account blocked" {
		t.Fatalf("blocked %d %s", b.Status, b.Body)
	}
	br := e.req("POST", "/signup", `{"email":"broken@example.com","password":"secret123"}`, "")
	if br.Status != 500 || !strings.Contains(br.json(t)["message"].(string), "session_id") {
		t.Fatalf("broken %d %s", br.Status, br.Body)
	}
	var n int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT count(*) FROM auth.users WHERE email IN ('blocked@example.com', 'broken@example.com')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("users created despite the hook's refusal: %d (%v)", n, err)
	}
	// The environment form of the setting.
	cfg, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true",
			"GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": "pg-functions://postgres/public/access_token_hook"}[k]
	})
	if err != nil || cfg.CustomAccessTokenHook != "public.access_token_hook" {
		t.Fatalf("config %q %v", cfg.CustomAccessTokenHook, err)
	}
	if _, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true", "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": "https://x"}[k]
	}); err == nil {
		t.Fatal("want an error for a non pg-functions URI")
	}
}
