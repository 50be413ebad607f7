package auth

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
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
	// MFA covers factor challenge and verify per IP per minute.
	MFA int
	// SSO covers POST /sso per IP per 5 min.
	SSO int
	// Passkey covers passkey sign-in options per IP per 5 min.
	Passkey int
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
			Anonymous: 30, MFA: 15, SSO: 30, Passkey: 30, PasswordFailures: 5, PasswordAccountFailures: 50, PasswordMaxDelay: 15 * time.Minute},
		WebAuthn: defaultWebAuthnConfig(),
	}
}

// Validate checks the settings New depends on.
func (c *Config) Validate() error {
	for name, v := range map[string]string{"site url": c.SiteURL, "api url": c.APIURL} {
		u, err := url.Parse(v)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("auth: %s %q must be an absolute URL", name, v)
		}
	}
	if c.JWTExp < time.Minute {
		return errors.New("auth: jwt expiry must be at least 60s")
	}
	if c.OTPLength < 6 || c.OTPLength > 10 {
		return fmt.Errorf("auth: otp length %d must be between 6 and 10", c.OTPLength)
	}
	if c.BcryptCost < 4 || c.BcryptCost > 31 {
		return fmt.Errorf("auth: bcrypt cost %d must be between 4 and 31", c.BcryptCost)
	}
	for _, set := range []map[string]string{c.MailSubjects, c.MailTemplates} {
		for kind, t := range set {
			if !mailKinds[kind] {
				return fmt.Errorf("auth: unknown mail kind %q", kind)
			}
			if _, err := template.New(kind).Parse(t); err != nil {
				return fmt.Errorf("auth: mail template %s: %w", kind, err)
			}
		}
	}
	if c.RateLimits.PasswordMaxDelay <= 0 {
		c.RateLimits.PasswordMaxDelay = 15 * time.Minute
	}
	if c.PasswordMinLength < 6 {
		c.PasswordMinLength = 6 // the reference's floor
	}
	if err := c.validateExternal(); err != nil {
		return err
	}
	if err := c.validateCustomOAuth(); err != nil {
		return err
	}
	if err := c.validateSAML(); err != nil {
		return err
	}
	return c.validateWebAuthn()
}

// ConfigFromEnv reads BASALT_AUTH_* variables (see the README) over
// DefaultConfig. GOTRUE_* names are accepted too, so settings written for
// the reference server carry over.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	e := envReader{getenv: getenv}
	e.str("SITE_URL", &c.SiteURL)
	e.str("API_EXTERNAL_URL", &c.APIURL)
	c.APIURL = strings.TrimSuffix(strings.TrimSuffix(c.APIURL, "/"), "/auth/v1")
	e.list("URI_ALLOW_LIST", &c.URIAllowList)
	e.boolean("DISABLE_SIGNUP", &c.DisableSignup)
	e.seconds("JWT_EXP", &c.JWTExp)
	e.str("JWT_AUD", &c.JWTAud)
	e.str("JWT_DEFAULT_GROUP_NAME", &c.JWTDefaultRole)
	e.list("JWT_ADMIN_ROLES", &c.JWTAdminRoles)
	e.str("JWT_ISSUER", &c.JWTIssuer)
	if c.JWTIssuer == "" {
		// Supabase issues tokens as <api url>/auth/v1.
		c.JWTIssuer = c.APIURL + "/auth/v1"
	}
	e.boolean("EXTERNAL_EMAIL_ENABLED", &c.EmailEnabled)
	e.boolean("EXTERNAL_EMAIL_MAGIC_LINK_ENABLED", &c.MagicLinkEnabled)
	e.boolean("EXTERNAL_PHONE_ENABLED", &c.PhoneEnabled)
	e.boolean("EXTERNAL_ANONYMOUS_USERS_ENABLED", &c.AnonymousEnabled)
	e.boolean("MAILER_AUTOCONFIRM", &c.MailerAutoconfirm)
	e.boolean("MAILER_SECURE_EMAIL_CHANGE_ENABLED", &c.SecureEmailChange)
	e.seconds("MAILER_OTP_EXP", &c.MailerOTPExp)
	e.integer("MAILER_OTP_LENGTH", &c.OTPLength)
	e.duration("SMTP_MAX_FREQUENCY", &c.MaxEmailFrequency)
	e.str("SMTP_HOST", &c.SMTP.Host)
	e.integer("SMTP_PORT", &c.SMTP.Port)
	e.str("SMTP_USER", &c.SMTP.User)
	e.str("SMTP_PASS", &c.SMTP.Pass)
	e.str("SMTP_ADMIN_EMAIL", &c.SMTP.AdminEmail)
	e.str("SMTP_SENDER_NAME", &c.SMTP.SenderName)
	e.boolean("DEV_MAILBOX", &c.DevMailbox)
	for kind := range mailKinds {
		name := strings.ToUpper(kind)
		if v := e.get("MAILER_SUBJECTS_" + name); v != "" {
			if c.MailSubjects == nil {
				c.MailSubjects = map[string]string{}
			}
			c.MailSubjects[kind] = v
		}
		if path := e.get("MAILER_TEMPLATES_" + name); path != "" {
			b, err := readTemplate(path)
			if err != nil {
				e.errs = append(e.errs, fmt.Errorf("MAILER_TEMPLATES_%s: %w", name, err))
				continue
			}
			if c.MailTemplates == nil {
				c.MailTemplates = map[string]string{}
			}
			c.MailTemplates[kind] = string(b)
		}
	}
	e.boolean("SMS_AUTOCONFIRM", &c.SMSAutoconfirm)
	e.seconds("SMS_OTP_EXP", &c.SMSOTPExp)
	e.duration("SMS_MAX_FREQUENCY", &c.SMSMaxFrequency)
	e.integer("SMS_OTP_LENGTH", &c.SMSOTPLength)
	if v := e.get("SMS_TEST_OTP"); v != "" {
		c.SMSTestOTP = map[string]string{}
		for _, pair := range strings.Split(v, ",") {
			phone, code, ok := strings.Cut(strings.TrimSpace(pair), ":")
			if !ok {
				e.errs = append(e.errs, fmt.Errorf("SMS_TEST_OTP: %q is not phone:code", pair))
				continue
			}
			c.SMSTestOTP[strings.TrimPrefix(phone, "+")] = code
		}
	}
	e.integer("PASSWORD_MIN_LENGTH", &c.PasswordMinLength)
	if v := e.get("PASSWORD_REQUIRED_CHARACTERS"); v != "" {
		c.PasswordRequiredCharacters = strings.Split(v, ":")
	}
	e.integer("BCRYPT_COST", &c.BcryptCost)
	e.boolean("SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", &c.RefreshTokenRotation)
	e.seconds("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", &c.RefreshTokenReuseInterval)
	e.boolean("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", &c.UpdatePasswordRequireReauth)
	if on := e.get("HOOK_CUSTOM_ACCESS_TOKEN_ENABLED"); on == "true" || on == "1" {
		uri := e.get("HOOK_CUSTOM_ACCESS_TOKEN_URI")
		rest, ok := strings.CutPrefix(uri, "pg-functions://")
		parts := strings.Split(rest, "/")
		if !ok || len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			e.errs = append(e.errs, fmt.Errorf("HOOK_CUSTOM_ACCESS_TOKEN_URI %q: want pg-functions://<db>/<schema>/<function>", uri))
		} else {
			c.CustomAccessTokenHook = parts[1] + "." + parts[2]
		}
	}
	e.duration("SESSIONS_TIMEBOX", &c.SessionTimebox)
	e.duration("SESSIONS_INACTIVITY_TIMEOUT", &c.SessionInactivity)
	e.boolean("SESSIONS_SINGLE_PER_USER", &c.SingleSessionPerUser)
	e.boolean("MFA_TOTP_ENROLL_ENABLED", &c.MFATOTPEnroll)
	e.boolean("MFA_TOTP_VERIFY_ENABLED", &c.MFATOTPVerify)
	e.integer("MFA_MAX_ENROLLED_FACTORS", &c.MFAMaxFactors)
	e.seconds("MFA_CHALLENGE_EXPIRY_DURATION", &c.MFAChallengeExpiry)
	e.seconds("EXTERNAL_FLOW_STATE_EXPIRY_DURATION", &c.FlowStateExpiry)
	e.integer("RATE_LIMIT_EMAIL_SENT", &c.RateLimits.EmailSent)
	e.integer("RATE_LIMIT_SMS_SENT", &c.RateLimits.SMSSent)
	e.integer("RATE_LIMIT_OTP", &c.RateLimits.OTP)
	e.integer("RATE_LIMIT_TOKEN_REFRESH", &c.RateLimits.Token)
	e.integer("RATE_LIMIT_VERIFY", &c.RateLimits.Verify)
	e.integer("RATE_LIMIT_ANONYMOUS_USERS", &c.RateLimits.Anonymous)
	e.integer("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", &c.RateLimits.MFA)
	e.integer("RATE_LIMIT_PASSWORD_FAILURES", &c.RateLimits.PasswordFailures)
	e.integer("RATE_LIMIT_PASSWORD_ACCOUNT_FAILURES", &c.RateLimits.PasswordAccountFailures)
	e.seconds("RATE_LIMIT_PASSWORD_MAX_DELAY", &c.RateLimits.PasswordMaxDelay)
	e.readExternal(&c)
	e.readSAML(&c)
	e.readCustomOAuth(&c)
	e.integer("RATE_LIMIT_SSO", &c.RateLimits.SSO)
	e.readWebAuthn(&c)
	if err := errors.Join(e.errs...); err != nil {
		return c, err
	}
	return c, c.Validate()
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

// envReader reads BASALT_AUTH_<NAME>, falling back to GOTRUE_<NAME>, and
// collects parse errors.
type envReader struct {
	getenv func(string) string
	errs   []error
}

func (e *envReader) get(name string) string {
	if v := e.getenv("BASALT_AUTH_" + name); v != "" {
		return v
	}
	return e.getenv("GOTRUE_" + name)
}

func (e *envReader) str(name string, dst *string) {
	if v := e.get(name); v != "" {
		*dst = v
	}
}

func (e *envReader) list(name string, dst *[]string) {
	if v := e.get(name); v != "" {
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		*dst = out
	}
}

func (e *envReader) boolean(name string, dst *bool) {
	if v := e.get(name); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		*dst = b
	}
}

func (e *envReader) integer(name string, dst *int) {
	if v := e.get(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		*dst = n
	}
}

// seconds reads a count of seconds (or a Go duration such as "1h").
func (e *envReader) seconds(name string, dst *time.Duration) {
	if v := e.get(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			*dst = time.Duration(n) * time.Second
			return
		}
		e.duration(name, dst)
	}
}

// duration reads a Go duration ("60s"), or plain seconds.
func (e *envReader) duration(name string, dst *time.Duration) {
	if v := e.get(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			*dst = time.Duration(n) * time.Second
			return
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		*dst = d
	}
}
