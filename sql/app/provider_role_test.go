package app_test

import (
	"testing"
)

// A sign-up through an external provider starts without a role and picks
// it once on the role chooser (choose_signup_role); accounts that have a
// role cannot use it to change theirs, and admin is never a choice.
func TestProviderSignupChoosesRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var id string
	err := e.db.Admin.QueryRow(e.ctx, `INSERT INTO auth.users (id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', 'g@example.com',
		'{"provider": "google", "providers": ["google"]}', '{"full_name": "Gee Oogle", "email_verified": true}', now(), now())
		RETURNING id::text`).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if r := scalar[*string](e, `SELECT role::text FROM public.public_profiles WHERE id = $1`, id); r != nil {
		t.Fatalf("provider sign-up got role %s before choosing", *r)
	}
	if n := scalar[int](e, `SELECT count(*) FROM public.user_roles WHERE user_id = $1`, id); n != 0 {
		t.Fatalf("user_roles rows: %d", n)
	}
	if n := scalar[int](e, `SELECT count(*) FROM public.wallets WHERE user_id = $1`, id); n != 1 {
		t.Fatalf("wallets: %d", n)
	}
	if d := scalar[string](e, `SELECT display_name FROM public.public_profiles WHERE id = $1`, id); d != "Gee Oogle" {
		t.Fatalf("display name %q", d)
	}

	me := caller{uid: id, ip: "10.0.0.1"}
	if _, err := e.try(me, `SELECT public.choose_signup_role('admin')`); sqlState(err) != "22023" {
		t.Fatalf("admin as a choice: %v", err)
	}
	if _, err := e.try(caller{ip: "10.0.0.1"}, `SELECT public.choose_signup_role('artist')`); sqlState(err) != "42501" {
		t.Fatalf("anon: %v", err)
	}
	var got string
	if err := e.query(me, `SELECT public.choose_signup_role('artist')::text`, nil, &got); err != nil || got != "artist" {
		t.Fatalf("choose: %q %v", got, err)
	}
	if r := scalar[string](e, `SELECT role::text FROM public.user_roles WHERE user_id = $1`, id); r != "artist" {
		t.Fatalf("user_roles %s", r)
	}
	if r := scalar[string](e, `SELECT role::text FROM public.public_profiles WHERE id = $1`, id); r != "artist" {
		t.Fatalf("profile role %s", r)
	}
	if n := scalar[int](e, `SELECT count(*) FROM public.artist_profiles WHERE id = $1 AND name = 'Gee Oogle'`, id); n != 1 {
		t.Fatal("no artist profile")
	}
	if n := scalar[int](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND type = 'welcome'`, id); n != 1 {
		t.Fatalf("welcome notifications: %d", n)
	}
	_, err = e.execAs(me, `SELECT public.choose_signup_role('sponsor')`)
	if sqlState(err) != "42501" || sqlMessage(err) != "Your account already has a role" {
		t.Fatalf("second choice: %v", err)
	}

	// Email sign-ups name their role as before, and cannot re-choose.
	fan := e.signUp("")
	if r := scalar[string](e, `SELECT role::text FROM public.user_roles WHERE user_id = $1`, fan); r != "fan" {
		t.Fatalf("email sign-up role %s", r)
	}
	if _, err := e.try(caller{uid: fan, ip: "10.0.0.2"}, `SELECT public.choose_signup_role('artist')`); sqlState(err) != "42501" {
		t.Fatalf("email user re-choosing: %v", err)
	}
}
