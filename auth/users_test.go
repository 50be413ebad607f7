package auth

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUserLoadersAgree checks that the two ways of loading a user give the
// same user: the batch of plain reads (userByID, used on the hot paths)
// and the single statement with JSON aggregates (loadUser, used for lookups
// by email, phone or token).
func TestUserLoadersAgree(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("loaders@example.com", "secret123")
	at := s["access_token"].(string)
	id := s["user"].(map[string]any)["id"].(string)
	// A second identity, a sign-in time on it, and two factors (one with a
	// challenge time), so every column and the order are compared.
	if r := e.req("PUT", "/user", map[string]any{"data": map[string]any{"n": 1.5, "tags": []any{"a"}}}, at); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	e.exec(`INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
		VALUES ('gh-1', $1, '{"sub":"gh-1","email":"Loaders@Example.com","nested":{"x":[1,2]}}', 'github', now(), now() + interval '1 second', now())`, id)
	for _, name := range []string{"first", "second"} {
		if r := e.req("POST", "/factors", map[string]any{"factor_type": "totp", "friendly_name": name}, at); r.Status != 200 {
			t.Fatalf("enroll %s: %d %s", name, r.Status, r.Body)
		}
	}
	e.exec(`UPDATE auth.mfa_factors SET last_challenged_at = now() WHERE friendly_name = 'second'`)

	ctx := context.Background()
	batch, err := userByID(ctx, e.db.Admin, id)
	if err != nil {
		t.Fatal(err)
	}
	single, err := loadUser(ctx, e.db.Admin, `u.id = $1`, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch.Identities) != 2 || len(batch.Factors) != 2 {
		t.Fatalf("identities %d, factors %d; want 2 and 2", len(batch.Identities), len(batch.Factors))
	}
	if d := cmp.Diff(single, batch); d != "" {
		t.Fatalf("userByID differs from loadUser (-single +batch):\n%s", d)
	}
	// The wire form is what clients see: it must match byte for byte.
	a, _ := marshalJSON(single)
	b, _ := marshalJSON(batch)
	if string(a) != string(b) {
		t.Fatalf("JSON differs:\n%s\n%s", a, b)
	}
}
