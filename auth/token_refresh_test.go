package auth

import (
	"context"
	"sync"
	"testing"
	"time"
)

func (e *env) refresh(token string) *resp {
	return e.req("POST", "/token?grant_type=refresh_token", map[string]any{"refresh_token": token}, e.keys.AnonKey)
}

func TestRefreshRotationAndReuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("r@example.com", "secret123")
	rt0 := s["refresh_token"].(string)
	sid := func(m map[string]any) any {
		c, err := e.keys.Verify(m["access_token"].(string), e.clock.now())
		if err != nil {
			t.Fatal(err)
		}
		return c.SessionID
	}
	r1 := e.refresh(rt0)
	if r1.Status != 200 {
		t.Fatalf("refresh %d %s", r1.Status, r1.Body)
	}
	m1 := r1.json(t)
	rt1 := m1["refresh_token"].(string)
	if rt1 == rt0 || sid(m1) != sid(s) {
		t.Fatal("refresh must rotate within the same session")
	}
	// The parent of the active token comes back (another tab): the same child.
	e.clock.add(time.Minute)
	again := e.refresh(rt0)
	if again.Status != 200 || again.json(t)["refresh_token"] != rt1 {
		t.Fatalf("parent of active: %d %s", again.Status, again.Body)
	}
	// Rotate once more; rt0 is now a grandparent. Inside the reuse interval
	// of rt1 it still works...
	m2 := e.refresh(rt1).json(t)
	rt2 := m2["refresh_token"].(string)
	e.clock.add(5 * time.Second)
	m2b := e.refresh(rt0)
	if m2b.Status != 400 {
		// rt0 was revoked a minute ago: outside the interval, reuse detected.
		t.Fatalf("old token reuse: %d %s", m2b.Status, m2b.Body)
	}
	wantErr(t, m2b, 400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
	// ...and reuse detection revoked the whole family, rt2 included.
	wantErr(t, e.refresh(rt2), 400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
	// Unknown and malformed tokens.
	wantErr(t, e.refresh("abcdefghijkl"), 400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
	wantErr(t, e.refresh("short"), 400, "validation_failed", "Refresh token is not valid")
}

func TestRefreshReuseInterval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("ri@example.com", "secret123")
	rt0 := s["refresh_token"].(string)
	rt1 := e.refresh(rt0).json(t)["refresh_token"].(string)
	rt2 := e.refresh(rt1).json(t)["refresh_token"].(string)
	// rt1 is revoked, its child rt2 is active: returns rt2 (parent rule).
	if got := e.refresh(rt1).json(t)["refresh_token"]; got != rt2 {
		t.Fatalf("got %v want %s", got, rt2)
	}
	// rt0 was revoked just now (inside 10 s): a fresh child is issued.
	e.clock.add(9 * time.Second)
	r := e.refresh(rt0)
	if r.Status != 200 {
		t.Fatalf("inside reuse interval: %d %s", r.Status, r.Body)
	}
	if got := r.json(t)["refresh_token"]; got == rt1 || got == rt2 {
		t.Fatal("expected a new child inside the reuse interval")
	}
	// rt0 has an active child again, so it gets that child back; rt1
	// (revoked 11 s ago, child no longer active) is a reuse.
	e.clock.add(2 * time.Second)
	if got := e.refresh(rt0); got.Status != 200 || got.json(t)["refresh_token"] != r.json(t)["refresh_token"] {
		t.Fatalf("parent of active after interval: %d %s", got.Status, got.Body)
	}
	wantErr(t, e.refresh(rt1), 400, "refresh_token_already_used", "")
}

// Concurrent refreshes of one token all succeed with the same child.
func TestRefreshConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	rt := e.signUp("c@example.com", "secret123")["refresh_token"].(string)
	const n = 8
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.refresh(rt)
			if r.Status == 200 {
				got[i] = r.json(t)["refresh_token"].(string)
			} else {
				got[i] = string(r.Body)
			}
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] || len(got[i]) != 12 {
			t.Fatalf("refresh %d got %q, refresh 0 got %q", i, got[i], got[0])
		}
	}
	var active int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM auth.refresh_tokens WHERE NOT revoked`).Scan(&active); err != nil || active != 1 {
		t.Fatalf("active tokens = %d (%v)", active, err)
	}
}

func TestRefreshBannedAndLoggedOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	s := e.signUp("b@example.com", "secret123")
	e.exec(`UPDATE auth.users SET banned_until = $1`, e.clock.now().Add(time.Hour))
	wantErr(t, e.refresh(s["refresh_token"].(string)), 400, "user_banned", "Invalid Refresh Token: User Banned")
	e.exec(`UPDATE auth.users SET banned_until = NULL`)
	if r := e.req("POST", "/logout", nil, s["access_token"].(string)); r.Status != 204 {
		t.Fatalf("logout %d %s", r.Status, r.Body)
	}
	// Logout deletes the session; its refresh tokens cascade.
	wantErr(t, e.refresh(s["refresh_token"].(string)), 400, "refresh_token_not_found", "")
}

func TestRefreshSessionLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		c.MailerAutoconfirm = true
		c.SessionInactivity = time.Hour
		c.SessionTimebox = 3 * time.Hour
		c.SingleSessionPerUser = true
	})
	s := e.signUp("lim@example.com", "secret123")
	rt := s["refresh_token"].(string)
	for range 2 {
		e.clock.add(50 * time.Minute)
		r := e.refresh(rt)
		if r.Status != 200 {
			t.Fatalf("active session refresh %d %s", r.Status, r.Body)
		}
		rt = r.json(t)["refresh_token"].(string)
	}
	e.clock.add(61 * time.Minute)
	wantErr(t, e.refresh(rt), 400, "session_expired", "Invalid Refresh Token: Session Expired (Inactivity)")

	// A newer sign-in wins.
	first := e.req("POST", "/token?grant_type=password", `{"email":"lim@example.com","password":"secret123"}`, "").json(t)
	e.clock.add(time.Second)
	e.req("POST", "/token?grant_type=password", `{"email":"lim@example.com","password":"secret123"}`, "")
	wantErr(t, e.refresh(first["refresh_token"].(string)), 400, "session_expired", "Invalid Refresh Token: Session Expired (Revoked by Newer Login)")

	// Timebox: even an active session ends.
	third := e.req("POST", "/token?grant_type=password", `{"email":"lim@example.com","password":"secret123"}`, "").json(t)
	rt = third["refresh_token"].(string)
	for range 3 {
		e.clock.add(55 * time.Minute)
		r := e.refresh(rt)
		if r.Status != 200 {
			t.Fatalf("inside the timebox: %d %s", r.Status, r.Body)
		}
		rt = r.json(t)["refresh_token"].(string)
	}
	e.clock.add(55 * time.Minute)
	wantErr(t, e.refresh(rt), 400, "session_expired", "Invalid Refresh Token: Session Expired")
}
