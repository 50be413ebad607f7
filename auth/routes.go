package auth

import (
	"net/http"
	"time"
)

// routes lists every endpoint of /auth/v1 (paths arrive with the prefix
// stripped by the gateway).
func (s *Service) routes() {
	// Per-IP budgets, in the reference's windows: five minutes for codes,
	// tokens and verification, one minute for MFA. Sign-up picks its own
	// budget inside the handler, because anonymous sign-ins have a
	// separate one, and so does /token, because the password grant weighs
	// it per account.
	rl := s.cfg.RateLimits
	otp := func(h handlerFunc) handlerFunc {
		return s.limitIP("otp", func() int { return rl.OTP }, 5*time.Minute, h)
	}
	ver := func(h handlerFunc) handlerFunc {
		return s.limitIP("verify", func() int { return rl.Verify }, 5*time.Minute, h)
	}
	// The reference gives challenges and verifications a budget each.
	mfaChallenge := func(h handlerFunc) handlerFunc {
		return s.limitIP("mfa_challenge", func() int { return rl.MFA }, time.Minute, h)
	}
	mfaVerify := func(h handlerFunc) handlerFunc {
		return s.limitIP("mfa_verify", func() int { return rl.MFA }, time.Minute, h)
	}
	m := s.mux
	m.Handle("GET /health", s.handle(s.health))
	m.Handle("GET /settings", s.handle(s.settings))
	m.Handle("GET /.well-known/jwks.json", s.handle(s.jwks))

	m.Handle("POST /signup", s.handle(s.signup)) // rate limits depend on anonymous vs not
	m.Handle("POST /token", s.handle(s.token))   // the per-IP budget depends on the grant
	m.Handle("POST /logout", s.handle(s.requireUser(s.logout)))
	m.Handle("GET /user", s.handle(s.requireUser(s.getUser)))
	m.Handle("PUT /user", s.handle(otp(s.requireUser(s.updateUser))))
	m.Handle("GET /reauthenticate", s.handle(s.requireUser(s.reauthenticate)))

	m.Handle("POST /otp", s.handle(otp(s.otp)))
	m.Handle("POST /magiclink", s.handle(otp(s.magicLink)))
	m.Handle("GET /verify", s.handle(ver(s.verifyGet)))
	m.Handle("POST /verify", s.handle(ver(s.verifyPost)))
	m.Handle("POST /recover", s.handle(otp(s.recover)))
	m.Handle("POST /resend", s.handle(otp(s.resend)))

	m.Handle("POST /factors", s.handle(s.requireUser(s.enrollFactor)))
	m.Handle("POST /factors/{id}/challenge", s.handle(mfaChallenge(s.requireUser(s.challengeFactor))))
	m.Handle("POST /factors/{id}/verify", s.handle(mfaVerify(s.requireUser(s.verifyFactor))))
	m.Handle("DELETE /factors/{id}", s.handle(s.requireUser(s.unenrollFactor)))

	// Passkeys (404 passkey_disabled while off; passkeys.go).
	pk := func(h handlerFunc) handlerFunc { return s.requirePasskeys(h) }
	pkLimit := func(h handlerFunc) handlerFunc {
		return s.limitIP("passkey", func() int { return rl.Passkey }, 5*time.Minute, h)
	}
	m.Handle("POST /passkeys/authentication/options", s.handle(pk(pkLimit(s.passkeyAuthenticationOptions))))
	m.Handle("POST /passkeys/authentication/verify", s.handle(pk(s.passkeyAuthenticationVerify)))
	m.Handle("POST /passkeys/registration/options", s.handle(pk(s.requireUser(s.passkeyRegistrationOptions))))
	m.Handle("POST /passkeys/registration/verify", s.handle(pk(s.requireUser(s.passkeyRegistrationVerify))))
	m.Handle("GET /passkeys", s.handle(pk(s.requireUser(s.passkeyList))))
	m.Handle("GET /passkeys/{$}", s.handle(pk(s.requireUser(s.passkeyList))))
	m.Handle("PATCH /passkeys/{id}", s.handle(pk(s.requireUser(s.passkeyUpdate))))
	m.Handle("DELETE /passkeys/{id}", s.handle(pk(s.requireUser(s.passkeyDelete))))

	// External providers: the browser's round trip, and linking.
	m.Handle("GET /authorize", s.handle(s.authorizeExternal))
	m.Handle("GET /callback", s.handle(s.externalCallback))
	m.Handle("POST /callback", s.handle(s.externalCallback))
	m.Handle("GET /user/identities/authorize", s.handle(s.requireUser(s.linkIdentity)))
	m.Handle("DELETE /user/identities/{id}", s.handle(s.requireUser(s.unlinkIdentity)))

	// SAML single sign-on (404 saml_provider_disabled while SSO is off).
	sso := func(h handlerFunc) handlerFunc {
		return s.limitIP("sso", func() int { return rl.SSO }, 5*time.Minute, h)
	}
	m.Handle("POST /sso", s.handle(s.requireSAML(sso(s.singleSignOn))))
	m.Handle("GET /sso/saml/metadata", s.handle(s.requireSAML(s.samlMetadata)))
	m.Handle("POST /sso/saml/acs", s.handle(s.requireSAML(s.samlACS)))
	// Other paths under /sso/ (the advertised but unserved single logout
	// service among them) answer as the reference's SSO router does:
	// saml_provider_disabled while SSO is off, else not found.
	m.Handle(ssoCatchAll, s.handle(s.requireSAML(s.notFound)))

	// The admin API needs a service_role (JWTAdminRoles) token.
	m.Handle("POST /invite", s.handle(s.requireAdmin(s.invite)))
	m.Handle("GET /admin/users", s.handle(s.requireAdmin(s.adminListUsers)))
	m.Handle("POST /admin/users", s.handle(s.requireAdmin(s.adminCreateUser)))
	m.Handle("GET /admin/users/{id}", s.handle(s.requireAdmin(s.adminGetUser)))
	m.Handle("PUT /admin/users/{id}", s.handle(s.requireAdmin(s.adminUpdateUser)))
	m.Handle("DELETE /admin/users/{id}", s.handle(s.requireAdmin(s.adminDeleteUser)))
	m.Handle("GET /admin/users/{id}/factors", s.handle(s.requireAdmin(s.adminListFactors)))
	m.Handle("DELETE /admin/users/{id}/factors/{fid}", s.handle(s.requireAdmin(s.adminDeleteFactor)))
	m.Handle("GET /admin/users/{id}/passkeys", s.handle(s.requireAdmin(s.adminPasskeyList)))
	m.Handle("DELETE /admin/users/{id}/passkeys/{pid}", s.handle(s.requireAdmin(s.adminPasskeyDelete)))
	m.Handle("POST /admin/generate_link", s.handle(s.requireAdmin(s.adminGenerateLink)))
	m.Handle("GET /admin/sso/providers", s.handle(s.requireAdmin(s.adminSSOProvidersList)))
	m.Handle("POST /admin/sso/providers", s.handle(s.requireAdmin(s.adminSSOProvidersCreate)))
	m.Handle("GET /admin/sso/providers/{idp_id}", s.handle(s.requireAdmin(s.adminSSOProvidersGet)))
	m.Handle("PUT /admin/sso/providers/{idp_id}", s.handle(s.requireAdmin(s.adminSSOProvidersUpdate)))
	m.Handle("DELETE /admin/sso/providers/{idp_id}", s.handle(s.requireAdmin(s.adminSSOProvidersDelete)))
	// Custom OAuth/OIDC providers (404 feature_disabled while CUSTOM_OAUTH_ENABLED is off).
	cop := func(h handlerFunc) http.Handler { return s.handle(s.requireAdmin(s.requireCustomOAuth(h))) }
	m.Handle("GET /admin/custom-providers", cop(s.adminCustomProvidersList))
	m.Handle("POST /admin/custom-providers", cop(s.adminCustomProvidersCreate))
	m.Handle("GET /admin/custom-providers/{identifier}", cop(s.adminCustomProvidersGet))
	m.Handle("PUT /admin/custom-providers/{identifier}", cop(s.adminCustomProvidersUpdate))
	m.Handle("DELETE /admin/custom-providers/{identifier}", cop(s.adminCustomProvidersDelete))

	// The OAuth 2.1 / OpenID Connect server (oauth_server.go): 404
	// feature_disabled while off.
	s.oauthRoutes()
	if s.mailbox != nil {
		m.Handle("GET /admin/dev/mailbox", s.handle(s.requireAdmin(s.devMailbox)))
	}
	// Anything else lands here: a known path with the wrong method gets 405
	// with Allow, an unknown path the reference's 404 body, never
	// net/http's plain-text answers (see notFound).
	m.Handle("/", s.handle(s.notFound))
}
