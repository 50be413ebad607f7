package auth

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// Config holds every auth setting. The zero value is not usable: start from
// DefaultConfig (or ConfigFromEnv) and change what you need.
type Config struct {
	// SiteURL is the app's URL: the fallback redirect target and the base of
	// the redirect allow-list. Also the default TOTP issuer (its host).
	SiteURL string
	// APIURL is the public base URL of the whole API (without /auth/v1);
	// email links point at <APIURL>/auth/v1/verify.
	APIURL string
	// URIAllowList are extra redirect targets, with * and ** globs.
	URIAllowList []string

	// DisableSignup refuses new users on /signup (GOTRUE_DISABLE_SIGNUP);
	// admins can still create and invite them.
	DisableSignup bool
	// JWTExp is the access token lifetime.
	JWTExp time.Duration
	// JWTAud is the aud claim and users.aud; JWTDefaultRole is users.role.
	JWTAud, JWTDefaultRole string
	// JWTAdminRoles are the role claims the admin API accepts.
	JWTAdminRoles []string
	// JWTIssuer is the iss claim (omitted when empty).
	JWTIssuer string

	// EmailEnabled, MagicLinkEnabled, PhoneEnabled and AnonymousEnabled
	// switch the sign-in methods on; a disabled one answers with the
	// reference's *_provider_disabled / *_disabled errors.
	EmailEnabled, MagicLinkEnabled, PhoneEnabled, AnonymousEnabled bool
	// MailerAutoconfirm confirms new email users at sign-up.
	MailerAutoconfirm bool
	// SecureEmailChange asks both the old and the new address to confirm.
	SecureEmailChange bool
	// MailerOTPExp is how long email links and OTPs stay valid.
	MailerOTPExp time.Duration
	// OTPLength is the number of digits of email OTPs (6 to 10).
	OTPLength int
	// MaxEmailFrequency is the minimum gap between two mails of one kind to
	// one user.
	MaxEmailFrequency time.Duration
	// SMTP is used when SMTP.Host is set.
	SMTP SMTPConfig
	// MailSubjects and MailTemplates override the built-in subject and HTML
	// body of a mail kind (confirmation, invite, recovery, magic_link,
	// email_change, reauthentication); Go templates with .ConfirmationURL,
	// .Token, .TokenHash, .SiteURL, .Email, .NewEmail, .Data, .RedirectTo.
	MailSubjects, MailTemplates map[string]string
	// DevMailbox keeps every message in memory, logs it, and lists it at
	// GET /admin/dev/mailbox (admin only).
	DevMailbox bool

	// SMSAutoconfirm confirms new phone users (and phone changes) without
	// a code.
	SMSAutoconfirm bool
	// SMSOTPExp is how long an SMS code stays valid.
	SMSOTPExp time.Duration
	// SMSMaxFrequency is the minimum gap between two codes to one number.
	SMSMaxFrequency time.Duration
	// SMSOTPLength is the number of digits of SMS codes.
	SMSOTPLength int
	// SMSTestOTP maps phone numbers (digits, no +) to fixed codes.
	SMSTestOTP map[string]string

	// PasswordMinLength is the shortest accepted password, in characters.
	PasswordMinLength int
	// PasswordRequiredCharacters: the password needs one character of each set.
	PasswordRequiredCharacters []string
	// BcryptCost is the bcrypt work factor of new password hashes; stored
	// hashes keep the cost they were made with.
	BcryptCost int
	// PasswordHashWorkers is how many bcrypt hashes and comparisons run at
	// once (0: the CPUs the process may use); PasswordHashMaxWait is
	// the longest a request waits for one before it is refused with 429
	// and Retry-After.
	PasswordHashWorkers int
	PasswordHashMaxWait time.Duration

	// RefreshTokenRotation revokes the whole token family on reuse.
	RefreshTokenRotation bool
	// RefreshTokenReuseInterval is how long a just-rotated token may still
	// be exchanged (multi-tab safety).
	RefreshTokenReuseInterval time.Duration
	// UpdatePasswordRequireReauth asks for a nonce to change a password on
	// sessions older than 24 h.
	UpdatePasswordRequireReauth bool

	// CustomAccessTokenHook is a Postgres function, "schema.function",
	// taking and returning jsonb, that may rewrite every access token's
	// claims (the reference's custom access token hook). Empty: none.
	CustomAccessTokenHook string

	// SessionTimebox ends sessions this long after sign-in; SessionInactivity
	// ends sessions not refreshed for this long; SingleSessionPerUser keeps
	// only the newest session refreshable. Zero/false: off.
	SessionTimebox, SessionInactivity time.Duration
	// SingleSessionPerUser: see SessionTimebox.
	SingleSessionPerUser bool

	// MFATOTPEnroll and MFATOTPVerify allow enrolling and verifying TOTP
	// factors (the reference's MFA_TOTP_ENROLL_ENABLED / VERIFY_ENABLED).
	MFATOTPEnroll, MFATOTPVerify bool
	// MFAMaxFactors caps the factors of one user, verified or not.
	MFAMaxFactors int
	// MFAChallengeExpiry is how long a challenge accepts a code.
	MFAChallengeExpiry time.Duration
	// FlowStateExpiry is how long a PKCE auth code can be exchanged.
	FlowStateExpiry time.Duration

	// RateLimits are the per-IP and per-address request budgets.
	RateLimits RateLimits

	// External are the OAuth/OIDC sign-in providers by wire name
	// ("google", "custom:corp"); see external_config.go.
	External map[string]ProviderConfig
	// IOSBundleID is one more audience Apple ID tokens may carry.
	IOSBundleID string
	// AllowedIDTokenIssuers may sign ID tokens for the id_token grant with
	// an explicit issuer and client_id (the reference's deprecated form).
	AllowedIDTokenIssuers []string
	// ManualLinking allows linkIdentity and unlinkIdentity
	// (SECURITY_MANUAL_LINKING_ENABLED; off by default, as in the reference).
	ManualLinking bool
	// AllowUnverifiedEmailSignIns lets a provider sign-up with an
	// unverified email address in before it is confirmed.
	AllowUnverifiedEmailSignIns bool
	// OIDCCacheTTL is how long a provider's discovery document is reused.
	OIDCCacheTTL time.Duration
	// SAML configures SAML 2.0 single sign-on (saml_config.go).
	SAML SAMLConfig
	// WebAuthn configures passkeys and WebAuthn MFA factors
	// (webauthn_config.go).
	WebAuthn WebAuthnConfig
	// CustomOAuth configures the admin API's custom providers
	// (custom_providers_config.go).
	CustomOAuth CustomOAuthConfig
	// OAuthServer configures the OAuth 2.1 / OpenID Connect server
	// (oauth_server_config.go).
	OAuthServer OAuthServerConfig
}

// SMTPConfig is the outgoing mail server.
type SMTPConfig struct {
	// Host and Port locate the server; an empty Host means no SMTP.
	Host string
	Port int
	// User and Pass authenticate (PLAIN, only over TLS); empty: no auth.
	User, Pass string
	// AdminEmail is the From address.
	AdminEmail string
	// SenderName is the display name put before AdminEmail.
	SenderName string
}

// RateLimits are request budgets. A zero count disables that limit.
type RateLimits struct {
	// EmailSent and SMSSent are global per-hour budgets for outgoing messages.
	EmailSent, SMSSent int
	// OTP covers /signup, /otp, /recover, /resend, PUT /user per IP per 5 min.
	OTP int
	// Token covers /token per IP per 5 min; Verify covers /verify.
	Token, Verify int
	// Anonymous covers anonymous sign-ins per IP per hour.
	Anonymous int
	// MFA is the per-IP budget of factor challenges per minute, and
	// separately of factor verifications, as the reference counts them.
	MFA int
	// MFAVerifyFactor is how many verifications one factor gets per
	// mfaFactorWindow from every address together (Basalt's own): what
	// bounds guessing a six-digit code whatever addresses it comes from.
	MFAVerifyFactor int
	// SSO covers POST /sso per IP per 5 min.
	SSO int
	// Passkey covers passkey sign-in options per IP per 5 min.
	Passkey int
	// OAuthClientRegister covers dynamic client registrations per IP per 5 min.
	OAuthClientRegister int
	// PasswordFailures is how many wrong passwords one client address may
	// try on one account before each further attempt waits a delay that
	// doubles from one second (see guessing.go). 0 turns the per-account
	// limits off: the per-IP Token budget then refuses sign-ins outright,
	// as the reference does.
	PasswordFailures int
	// PasswordAccountFailures: once an account has this many recent
	// failures from all addresses together, every address that has failed
	// on it waits too (0: off).
	PasswordAccountFailures int
	// PasswordMaxDelay caps the wait between two attempts.
	PasswordMaxDelay time.Duration
}

// DefaultConfig returns the reference server's defaults with Supabase's
// choices where they differ (aud/role "authenticated", reuse interval 10 s).
func DefaultConfig() Config {
	return Config{
		SiteURL:                   "http://localhost:3000",
		APIURL:                    "http://localhost:54321",
		JWTExp:                    time.Hour,
		JWTAud:                    "authenticated",
		JWTDefaultRole:            "authenticated",
		JWTAdminRoles:             []string{"service_role", "supabase_admin"},
		EmailEnabled:              true,
		MagicLinkEnabled:          true,
		SecureEmailChange:         true,
		MailerOTPExp:              24 * time.Hour,
		OTPLength:                 6,
		MaxEmailFrequency:         60 * time.Second,
		SMTP:                      SMTPConfig{Port: 587},
		SMSOTPExp:                 60 * time.Second,
		SMSMaxFrequency:           60 * time.Second,
		SMSOTPLength:              6,
		PasswordMinLength:         6,
		BcryptCost:                10,
		PasswordHashWorkers:       runtime.GOMAXPROCS(0),
		PasswordHashMaxWait:       500 * time.Millisecond,
		RefreshTokenRotation:      true,
		RefreshTokenReuseInterval: 10 * time.Second,
		MFATOTPEnroll:             true,
		MFATOTPVerify:             true,
		MFAMaxFactors:             10,
		MFAChallengeExpiry:        300 * time.Second,
		FlowStateExpiry:           300 * time.Second,
		OIDCCacheTTL:              time.Hour,
		CustomOAuth:               CustomOAuthConfig{Enabled: true},
		RateLimits: RateLimits{EmailSent: 30, SMSSent: 30, OTP: 30, Token: 150, Verify: 30,
			Anonymous: 30, MFA: 15, MFAVerifyFactor: 10, SSO: 30, Passkey: 30, OAuthClientRegister: 10, PasswordFailures: 5, PasswordAccountFailures: 50, PasswordMaxDelay: 15 * time.Minute},
		WebAuthn:    defaultWebAuthnConfig(),
		OAuthServer: defaultOAuthServerConfig(),
	}
}

// Validate checks the settings New depends on and reports every problem.
func (c *Config) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, fmt.Errorf("auth: %s: %s", p.setting, p.msg))
	}
	return errors.Join(errs...)
}

// problem is a bad setting Validate finds, named by its variable without
// the BASALT_AUTH_/GOTRUE_ prefix, so ConfigFromEnv can name the variable
// that was actually set.
type problem struct{ setting, msg string }

func bad(setting, format string, args ...any) problem {
	return problem{setting, fmt.Sprintf(format, args...)}
}

// problems checks the settings (filling in the floors and defaults the
// reference applies) and returns every bad one.
func (c *Config) problems() []problem {
	var ps []problem
	for _, u := range [][2]string{{"SITE_URL", c.SiteURL}, {"API_EXTERNAL_URL", c.APIURL}} {
		if !absoluteURL(u[1]) {
			ps = append(ps, bad(u[0], "%q must be an absolute URL", u[1]))
		}
	}
	if c.JWTExp < time.Minute {
		ps = append(ps, bad("JWT_EXP", "%s must be at least 60s", c.JWTExp))
	}
	if c.OTPLength < 6 || c.OTPLength > 10 {
		ps = append(ps, bad("MAILER_OTP_LENGTH", "%d must be between 6 and 10", c.OTPLength))
	}
	if c.BcryptCost < 4 || c.BcryptCost > 31 {
		ps = append(ps, bad("BCRYPT_COST", "%d must be between 4 and 31", c.BcryptCost))
	}
	switch {
	case c.PasswordHashWorkers < 0:
		ps = append(ps, bad("PASSWORD_HASH_WORKERS", "%d must not be negative", c.PasswordHashWorkers))
	case c.PasswordHashWorkers == 0:
		c.PasswordHashWorkers = runtime.GOMAXPROCS(0)
	}
	for setting, set := range map[string]map[string]string{"MAILER_SUBJECTS_": c.MailSubjects, "MAILER_TEMPLATES_": c.MailTemplates} {
		for _, kind := range slices.Sorted(maps.Keys(set)) {
			t := set[kind]
			if !mailKinds[kind] {
				ps = append(ps, bad(setting+strings.ToUpper(kind), "unknown mail kind %q", kind))
			} else if _, err := template.New(kind).Parse(t); err != nil {
				ps = append(ps, bad(setting+strings.ToUpper(kind), "%v", err))
			}
		}
	}
	if c.RateLimits.PasswordMaxDelay <= 0 {
		c.RateLimits.PasswordMaxDelay = 15 * time.Minute
	}
	if c.PasswordMinLength < 6 {
		c.PasswordMinLength = 6 // the reference's floor
	}
	ps = append(ps, c.externalProblems()...)
	ps = append(ps, c.customOAuthProblems()...)
	ps = append(ps, c.oauthServerProblems()...)
	ps = append(ps, c.samlProblems()...)
	return append(ps, c.webAuthnProblems()...)
}

// absoluteURL reports whether v has a scheme and a host.
func absoluteURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// ConfigFromEnv reads BASALT_AUTH_* variables (see the README) over
// DefaultConfig. GOTRUE_* names are accepted too, so settings written for
// the reference server carry over. Every bad variable is reported at once.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	r := config.NewReader(getenv).WithPrefixes("BASALT_AUTH_", "GOTRUE_")
	c.SiteURL = r.String("SITE_URL", c.SiteURL)
	c.APIURL = strings.TrimSuffix(strings.TrimSuffix(r.String("API_EXTERNAL_URL", c.APIURL), "/"), "/auth/v1")
	c.URIAllowList = r.List("URI_ALLOW_LIST", c.URIAllowList)
	c.DisableSignup = r.Bool("DISABLE_SIGNUP", c.DisableSignup)
	c.JWTExp = r.Seconds("JWT_EXP", c.JWTExp)
	c.JWTAud = r.String("JWT_AUD", c.JWTAud)
	c.JWTDefaultRole = r.String("JWT_DEFAULT_GROUP_NAME", c.JWTDefaultRole)
	c.JWTAdminRoles = r.List("JWT_ADMIN_ROLES", c.JWTAdminRoles)
	// Supabase issues tokens as <api url>/auth/v1.
	c.JWTIssuer = r.String("JWT_ISSUER", c.APIURL+"/auth/v1")
	readMail(r, &c)
	c.SMSAutoconfirm = r.Bool("SMS_AUTOCONFIRM", c.SMSAutoconfirm)
	c.SMSOTPExp = r.Seconds("SMS_OTP_EXP", c.SMSOTPExp)
	c.SMSMaxFrequency = r.Seconds("SMS_MAX_FREQUENCY", c.SMSMaxFrequency)
	c.SMSOTPLength = r.Int("SMS_OTP_LENGTH", c.SMSOTPLength)
	for phone, code := range r.Map("SMS_TEST_OTP", nil) {
		if c.SMSTestOTP == nil {
			c.SMSTestOTP = map[string]string{}
		}
		c.SMSTestOTP[strings.TrimPrefix(phone, "+")] = code
	}
	c.PasswordMinLength = r.Int("PASSWORD_MIN_LENGTH", c.PasswordMinLength)
	if v := r.String("PASSWORD_REQUIRED_CHARACTERS", ""); v != "" {
		c.PasswordRequiredCharacters = strings.Split(v, ":")
	}
	c.BcryptCost = r.Int("BCRYPT_COST", c.BcryptCost)
	c.PasswordHashWorkers = r.Int("PASSWORD_HASH_WORKERS", c.PasswordHashWorkers)
	c.PasswordHashMaxWait = r.Seconds("PASSWORD_HASH_MAX_WAIT", c.PasswordHashMaxWait)
	c.RefreshTokenRotation = r.Bool("SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", c.RefreshTokenRotation)
	c.RefreshTokenReuseInterval = r.Seconds("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", c.RefreshTokenReuseInterval)
	c.UpdatePasswordRequireReauth = r.Bool("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", c.UpdatePasswordRequireReauth)
	if r.Bool("HOOK_CUSTOM_ACCESS_TOKEN_ENABLED", false) {
		r.Parse("HOOK_CUSTOM_ACCESS_TOKEN_URI", func(uri string) (err error) {
			c.CustomAccessTokenHook, err = parseHookURI(uri)
			return err
		})
		if r.String("HOOK_CUSTOM_ACCESS_TOKEN_URI", "") == "" {
			r.Fail("%s: required when the hook is enabled (pg-functions://<db>/<schema>/<function>)", r.Name("HOOK_CUSTOM_ACCESS_TOKEN_URI"))
		}
	}
	c.SessionTimebox = r.Seconds("SESSIONS_TIMEBOX", c.SessionTimebox)
	c.SessionInactivity = r.Seconds("SESSIONS_INACTIVITY_TIMEOUT", c.SessionInactivity)
	c.SingleSessionPerUser = r.Bool("SESSIONS_SINGLE_PER_USER", c.SingleSessionPerUser)
	c.MFATOTPEnroll = r.Bool("MFA_TOTP_ENROLL_ENABLED", c.MFATOTPEnroll)
	c.MFATOTPVerify = r.Bool("MFA_TOTP_VERIFY_ENABLED", c.MFATOTPVerify)
	c.MFAMaxFactors = r.Int("MFA_MAX_ENROLLED_FACTORS", c.MFAMaxFactors)
	c.MFAChallengeExpiry = r.Seconds("MFA_CHALLENGE_EXPIRY_DURATION", c.MFAChallengeExpiry)
	c.FlowStateExpiry = r.Seconds("EXTERNAL_FLOW_STATE_EXPIRY_DURATION", c.FlowStateExpiry)
	readRateLimits(r, &c.RateLimits)
	readExternal(r, &c)
	readSAML(r, &c)
	readCustomOAuth(r, &c)
	readOAuthServer(r, &c)
	readWebAuthn(r, &c)
	for _, p := range c.problems() {
		r.Fail("%s: %s", r.Name(p.setting), p.msg)
	}
	return c, r.Err()
}

// readMail reads the sign-in switches and the mail settings.
func readMail(r *config.Reader, c *Config) {
	c.EmailEnabled = r.Bool("EXTERNAL_EMAIL_ENABLED", c.EmailEnabled)
	c.MagicLinkEnabled = r.Bool("EXTERNAL_EMAIL_MAGIC_LINK_ENABLED", c.MagicLinkEnabled)
	c.PhoneEnabled = r.Bool("EXTERNAL_PHONE_ENABLED", c.PhoneEnabled)
	c.AnonymousEnabled = r.Bool("EXTERNAL_ANONYMOUS_USERS_ENABLED", c.AnonymousEnabled)
	c.MailerAutoconfirm = r.Bool("MAILER_AUTOCONFIRM", c.MailerAutoconfirm)
	c.SecureEmailChange = r.Bool("MAILER_SECURE_EMAIL_CHANGE_ENABLED", c.SecureEmailChange)
	c.MailerOTPExp = r.Seconds("MAILER_OTP_EXP", c.MailerOTPExp)
	c.OTPLength = r.Int("MAILER_OTP_LENGTH", c.OTPLength)
	c.MaxEmailFrequency = r.Seconds("SMTP_MAX_FREQUENCY", c.MaxEmailFrequency)
	c.SMTP.Host = r.String("SMTP_HOST", c.SMTP.Host)
	c.SMTP.Port = r.Port("SMTP_PORT", c.SMTP.Port)
	c.SMTP.User = r.String("SMTP_USER", c.SMTP.User)
	c.SMTP.Pass = r.String("SMTP_PASS", c.SMTP.Pass)
	c.SMTP.AdminEmail = r.String("SMTP_ADMIN_EMAIL", c.SMTP.AdminEmail)
	c.SMTP.SenderName = r.String("SMTP_SENDER_NAME", c.SMTP.SenderName)
	c.DevMailbox = r.Bool("DEV_MAILBOX", c.DevMailbox)
	for kind := range mailKinds {
		name := strings.ToUpper(kind)
		if v := r.String("MAILER_SUBJECTS_"+name, ""); v != "" {
			if c.MailSubjects == nil {
				c.MailSubjects = map[string]string{}
			}
			c.MailSubjects[kind] = v
		}
		r.Parse("MAILER_TEMPLATES_"+name, func(loc string) error {
			b, err := readTemplate(loc)
			if err != nil {
				return err
			}
			if c.MailTemplates == nil {
				c.MailTemplates = map[string]string{}
			}
			c.MailTemplates[kind] = string(b)
			return nil
		})
	}
}

// readRateLimits reads the request budgets.
func readRateLimits(r *config.Reader, rl *RateLimits) {
	rl.EmailSent = r.Int("RATE_LIMIT_EMAIL_SENT", rl.EmailSent)
	rl.SMSSent = r.Int("RATE_LIMIT_SMS_SENT", rl.SMSSent)
	rl.OTP = r.Int("RATE_LIMIT_OTP", rl.OTP)
	rl.Token = r.Int("RATE_LIMIT_TOKEN_REFRESH", rl.Token)
	rl.Verify = r.Int("RATE_LIMIT_VERIFY", rl.Verify)
	rl.Anonymous = r.Int("RATE_LIMIT_ANONYMOUS_USERS", rl.Anonymous)
	rl.MFA = r.Int("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", rl.MFA)
	rl.MFAVerifyFactor = r.Int("MFA_RATE_LIMIT_VERIFY_PER_FACTOR", rl.MFAVerifyFactor)
	rl.SSO = r.Int("RATE_LIMIT_SSO", rl.SSO)
	rl.Passkey = r.Int("RATE_LIMIT_PASSKEY", rl.Passkey)
	rl.PasswordFailures = r.Int("RATE_LIMIT_PASSWORD_FAILURES", rl.PasswordFailures)
	rl.PasswordAccountFailures = r.Int("RATE_LIMIT_PASSWORD_ACCOUNT_FAILURES", rl.PasswordAccountFailures)
	rl.PasswordMaxDelay = r.Seconds("RATE_LIMIT_PASSWORD_MAX_DELAY", rl.PasswordMaxDelay)
}

// parseHookURI reads the reference's hook address,
// pg-functions://<db>/<schema>/<function>, as "schema.function".
func parseHookURI(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "pg-functions://")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return "", errors.New("want pg-functions://<db>/<schema>/<function>")
	}
	return parts[1] + "." + parts[2], nil
}

// readTemplate loads a mail template from a file path, a file:// URL or an
// http(s) URL (the reference's form), once, at start-up.
func readTemplate(loc string) ([]byte, error) {
	if !strings.HasPrefix(loc, "http://") && !strings.HasPrefix(loc, "https://") {
		return os.ReadFile(strings.TrimPrefix(loc, "file://"))
	}
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Get(loc)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", loc, res.Status)
	}
	return io.ReadAll(io.LimitReader(res.Body, 1<<20))
}
