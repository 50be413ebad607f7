package studio

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/apikeys"
)

// TestAPIKeys: the API screen lists the keys without the keys themselves,
// shows a new one once, rotates and revokes, and never hands a secret key
// to the browser.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	ctx := context.Background()
	st, err := apikeys.NewStore(ctx, e.db.Admin, nil)
	if err != nil {
		t.Fatal(err)
	}

	var made struct {
		apikeys.Key
		APIKey string `json:"api_key"`
	}
	c.json("POST", "/api/keys", map[string]any{"type": "publishable", "name": "mobile"}, http.StatusCreated, &made)
	if !strings.HasPrefix(made.APIKey, "sb_publishable_") || made.Prefix != apikeys.Shown(made.APIKey) || made.Name != "mobile" {
		t.Fatalf("created %+v", made)
	}
	if err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if role, ok := st.Role(made.APIKey); !ok || role != "anon" {
		t.Fatalf("the new key stands for %q, %v", role, ok)
	}
	res := c.do("GET", "/api/keys", nil)
	list := readAll(t, res)
	if res.StatusCode != 200 || strings.Contains(list, made.APIKey) || !strings.Contains(list, made.Prefix) {
		t.Fatalf("list: %d %s", res.StatusCode, list)
	}

	// Refused, and nothing made: a secret key, a bad name, a taken one.
	for _, b := range []map[string]any{{"type": "secret", "name": "server"}, {"type": "publishable", "name": "Bad Name"},
		{"type": "root", "name": "x"}} {
		c.json("POST", "/api/keys", b, http.StatusBadRequest, nil)
	}
	c.json("POST", "/api/keys", map[string]any{"type": "publishable", "name": "mobile"}, http.StatusConflict, nil)
	_, secret, err := apikeys.Create(ctx, e.db.Admin, apikeys.Secret, "server")
	if err != nil {
		t.Fatal(err)
	}
	c.json("POST", "/api/keys/"+secret.ID+"/rotate", nil, http.StatusBadRequest, nil)

	var rotated struct {
		apikeys.Key
		APIKey string `json:"api_key"`
	}
	c.json("POST", "/api/keys/"+made.ID+"/rotate", nil, http.StatusOK, &rotated)
	if rotated.APIKey == made.APIKey || rotated.Name != "mobile" || rotated.ID == made.ID {
		t.Fatalf("rotated %+v", rotated)
	}
	c.json("DELETE", "/api/keys/"+made.ID, nil, http.StatusNotFound, nil) // revoked already
	c.json("DELETE", "/api/keys/"+rotated.ID, nil, http.StatusOK, nil)
	c.json("DELETE", "/api/keys/"+secret.ID, nil, http.StatusOK, nil)
	if err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{made.APIKey, rotated.APIKey} {
		if _, ok := st.Role(k); ok {
			t.Errorf("%s is still valid", apikeys.Shown(k))
		}
	}
	var keys []apikeys.Key
	c.json("GET", "/api/keys", nil, http.StatusOK, &keys)
	if len(keys) != 3 {
		t.Fatalf("keys %+v", keys)
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			t.Errorf("%s is listed as valid", k.Name)
		}
	}
}
