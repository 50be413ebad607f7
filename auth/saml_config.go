package auth

import (
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"math/big"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// SAMLConfig configures SAML 2.0 single sign-on (the reference's
// GOTRUE_SAML_* settings).
type SAMLConfig struct {
	// Enabled turns on /sso, the SAML endpoints and the SSO admin API.
	Enabled bool
	// PrivateKey signs authentication requests (and decrypts assertions
	// when AllowEncryptedAssertions is on): RSA, at least 2048 bits.
	PrivateKey *rsa.PrivateKey
	// AllowEncryptedAssertions advertises the key for encryption too.
	AllowEncryptedAssertions bool
	// RelayStateValidity is how long a sign-in started with POST /sso may
	// take at the identity provider.
	RelayStateValidity time.Duration
	// ExternalURL is the base of Basalt's SAML URLs (metadata, ACS);
	// default <API_EXTERNAL_URL>/auth/v1.
	ExternalURL string
}

// readSAML reads SAML_* settings.
func readSAML(r *config.Reader, c *Config) {
	c.SAML.Enabled = r.Bool("SAML_ENABLED", c.SAML.Enabled)
	c.SAML.AllowEncryptedAssertions = r.Bool("SAML_ALLOW_ENCRYPTED_ASSERTIONS", c.SAML.AllowEncryptedAssertions)
	c.SAML.RelayStateValidity = r.Seconds("SAML_RELAY_STATE_VALIDITY_PERIOD", c.SAML.RelayStateValidity)
	c.SAML.ExternalURL = r.String("SAML_EXTERNAL_URL", c.SAML.ExternalURL)
	r.ParseSecret("SAML_PRIVATE_KEY", func(v string) (err error) {
		c.SAML.PrivateKey, err = parseSAMLKey(v)
		return err
	})
}

// parseSAMLKey reads the reference's key format: base64 of a PKCS#1 DER
// RSA key, 2048 bits or more, public exponent 65537.
func parseSAMLKey(v string) (*rsa.PrivateKey, error) {
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return nil, errors.New("not in standard Base64 format")
	}
	k, err := x509.ParsePKCS1PrivateKey(der)
	if err != nil {
		return nil, errors.New("not an RSA key in PKCS#1 format")
	}
	if k.E != 0x10001 {
		return nil, errors.New("should use the 65537 (0x10001) RSA public exponent")
	}
	if k.N.BitLen() < 2048 {
		return nil, errors.New("must be at least RSA 2048")
	}
	return k, nil
}

// samlProblems checks the SAML settings when SSO is on.
func (c *Config) samlProblems() []problem {
	if !c.SAML.Enabled {
		return nil
	}
	var ps []problem
	if c.SAML.PrivateKey == nil {
		ps = append(ps, bad("SAML_ENABLED", "SSO needs a valid SAML_PRIVATE_KEY"))
	}
	if c.SAML.RelayStateValidity <= 0 {
		c.SAML.RelayStateValidity = 2 * time.Minute
	}
	if c.SAML.ExternalURL == "" {
		c.SAML.ExternalURL = c.APIURL + "/auth/v1"
	}
	if !absoluteURL(c.SAML.ExternalURL) {
		ps = append(ps, bad("SAML_EXTERNAL_URL", "%q must be an absolute URL", c.SAML.ExternalURL))
	}
	return ps
}

// samlCertificate is the self-signed certificate of the SAML key that the
// service provider metadata publishes. Its fields are fixed, as in the
// reference, so every node (and every restart) publishes the same one.
func samlCertificate(k *rsa.PrivateKey, externalURL string, encryption bool) (*x509.Certificate, error) {
	u, err := url.Parse(externalURL)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(u.Host)
	if err != nil {
		host = u.Host
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0),
		DNSNames:     []string{"_samlsp." + host},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		NotBefore:    time.UnixMilli(0).UTC(),
		NotAfter:     time.UnixMilli(0).UTC().AddDate(200, 0, 0),
		Subject:      pkix.Name{CommonName: "SAML 2.0 Certificate for " + host},
	}
	if encryption {
		tmpl.KeyUsage |= x509.KeyUsageDataEncipherment
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}
