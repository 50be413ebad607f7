package app_test

import "testing"

func TestSignupCreatesEverything(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.signUp("artist")
	if got := scalar[string](e, `SELECT role::text FROM public.public_profiles WHERE id = $1`, id); got != "artist" {
		t.Fatalf("role = %q", got)
	}
}
