package apikeys_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/apikeys"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// waitFor waits until cond holds, checking after each refresh the store
// reports.
func waitFor(t *testing.T, st *apikeys.Store, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-st.Changed():
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestKeysAcrossNodes: several keys of each kind are valid at once; a key
// created or revoked through one node is accepted or refused by every node
// once the notification reaches it, with no restart.
func TestKeysAcrossNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	pub1, k1, err := apikeys.Create(ctx, db.Admin, apikeys.Publishable, "web")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pub1, "sb_publishable_") || k1.Kind != apikeys.Publishable || k1.Name != "web" || !strings.HasPrefix(pub1, k1.Prefix) {
		t.Fatalf("created %q %+v", pub1, k1)
	}
	nodes := make([]*apikeys.Store, 2)
	for i := range nodes {
		st, err := apikeys.NewStore(ctx, db.Admin, nil)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		t.Cleanup(stop)
		go st.Run(runCtx)
		nodes[i] = st
	}
	pub2, _, err := apikeys.Create(ctx, db.Admin, apikeys.Publishable, "mobile")
	if err != nil {
		t.Fatal(err)
	}
	sec, _, err := apikeys.Create(ctx, db.Admin, apikeys.Secret, "worker")
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range nodes {
		waitFor(t, st, "the new keys", func() bool {
			_, ok1 := st.Role(pub2)
			_, ok2 := st.Role(sec)
			return ok1 && ok2
		})
		for key, want := range map[string]string{pub1: "anon", pub2: "anon", sec: "service_role"} {
			if role, ok := st.Role(key); !ok || role != want {
				t.Errorf("node %d: role of %s = %q %v, want %q", i, apikeys.Shown(key), role, ok, want)
			}
		}
		for _, bad := range []string{"", "sb_publishable_unknown", pub1 + "x", "eyJ.x.y"} {
			if role, ok := st.Role(bad); ok {
				t.Errorf("node %d: %q accepted as %q", i, bad, role)
			}
		}
	}

	// Revoked through one node, refused by both; the other keys stay.
	if _, err := apikeys.Revoke(ctx, db.Admin, apikeys.Publishable, "web"); err != nil {
		t.Fatal(err)
	}
	for i, st := range nodes {
		waitFor(t, st, "the revocation", func() bool { _, ok := st.Role(pub1); return !ok })
		if _, ok := st.Role(pub2); !ok {
			t.Errorf("node %d refuses the other publishable key", i)
		}
	}
	if _, err := apikeys.Revoke(ctx, db.Admin, apikeys.Publishable, "web"); !errors.Is(err, apikeys.ErrNotFound) {
		t.Errorf("revoking a revoked key: %v, want ErrNotFound", err)
	}
	if _, err := apikeys.Revoke(ctx, db.Admin, apikeys.Publishable, "worker"); !errors.Is(err, apikeys.ErrNotFound) {
		t.Errorf("revoking a secret key as a publishable one: %v, want ErrNotFound", err)
	}

	// Rotation: a new secret under the same name, the old one refused.
	sec2, k2, err := apikeys.Rotate(ctx, db.Admin, apikeys.Secret, "worker")
	if err != nil {
		t.Fatal(err)
	}
	if k2.Name != "worker" || sec2 == sec {
		t.Fatalf("rotated to %+v", k2)
	}
	for _, st := range nodes {
		waitFor(t, st, "the rotation", func() bool {
			_, oldOK := st.Role(sec)
			role, newOK := st.Role(sec2)
			return !oldOK && newOK && role == "service_role"
		})
	}

	// The list shows names and prefixes, never keys; valid keys first.
	list, err := apikeys.List(ctx, db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	var valid, revoked int
	for _, k := range list {
		if k.RevokedAt == nil {
			valid++
			if revoked > 0 {
				t.Errorf("valid key %s listed after a revoked one", k.Name)
			}
		} else {
			revoked++
		}
		for _, full := range []string{pub1, pub2, sec, sec2} {
			if k.Prefix == full {
				t.Errorf("the list shows a whole key")
			}
		}
	}
	if valid != 2 || revoked != 2 {
		t.Errorf("%d valid and %d revoked keys listed, want 2 and 2: %+v", valid, revoked, list)
	}
}

// TestImport: a key the configuration names becomes a valid key once, and
// stays revoked once revoked, whatever the configuration says.
func TestImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	key := apikeys.New(apikeys.Secret)
	for range 2 {
		valid, err := apikeys.Import(ctx, db.Admin, key, "default")
		if err != nil || !valid {
			t.Fatalf("import: %v %v", valid, err)
		}
	}
	if _, err := apikeys.Revoke(ctx, db.Admin, apikeys.Secret, "default"); err != nil {
		t.Fatal(err)
	}
	if valid, err := apikeys.Import(ctx, db.Admin, key, "default"); err != nil || valid {
		t.Fatalf("import of a revoked key: %v %v, want it to stay revoked", valid, err)
	}
	// Another configured key of the same kind and name gets a name of its own.
	other := apikeys.New(apikeys.Secret)
	if _, _, err := apikeys.Create(ctx, db.Admin, apikeys.Secret, "default"); err != nil {
		t.Fatal(err)
	}
	if valid, err := apikeys.Import(ctx, db.Admin, other, "default"); err != nil || !valid {
		t.Fatalf("import under a taken name: %v %v", valid, err)
	}
	st, err := apikeys.NewStore(ctx, db.Admin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Role(key); ok {
		t.Error("a revoked configured key is accepted")
	}
	if role, ok := st.Role(other); !ok || role != "service_role" {
		t.Errorf("the other configured key: %q %v", role, ok)
	}
	if _, _, err := apikeys.Create(ctx, db.Admin, apikeys.Secret, "Bad Name"); !errors.Is(err, apikeys.ErrBadName) {
		t.Errorf("bad name: %v", err)
	}
	if _, _, err := apikeys.Create(ctx, db.Admin, apikeys.Secret, "default"); !errors.Is(err, apikeys.ErrExists) {
		t.Errorf("taken name: %v", err)
	}
}
