package auth

import "testing"

// CUSTOM_OAUTH_* as the reference reads them: on by default, no cap, and
// a callback base that must be a URL.
func TestCustomOAuthConfigFromEnv(t *testing.T) {
	t.Parallel()
	c, err := ConfigFromEnv(func(string) string { return "" })
	if err != nil || c.CustomOAuth != (CustomOAuthConfig{Enabled: true}) {
		t.Fatalf("defaults %+v %v", c.CustomOAuth, err)
	}
	env := map[string]string{"GOTRUE_CUSTOM_OAUTH_ENABLED": "false", "BASALT_AUTH_CUSTOM_OAUTH_MAX_PROVIDERS": "3",
		"BASALT_AUTH_CUSTOM_OAUTH_EXTERNAL_URL": "https://auth.example/auth/v1"}
	c, err = ConfigFromEnv(func(k string) string { return env[k] })
	if want := (CustomOAuthConfig{MaxProviders: 3, ExternalURL: "https://auth.example/auth/v1"}); err != nil || c.CustomOAuth != want {
		t.Fatalf("from env %+v %v", c.CustomOAuth, err)
	}
	if _, err := ConfigFromEnv(func(k string) string {
		return map[string]string{"BASALT_AUTH_CUSTOM_OAUTH_EXTERNAL_URL": "not a url"}[k]
	}); err == nil {
		t.Fatal("a callback base that is not a URL was accepted")
	}
}
