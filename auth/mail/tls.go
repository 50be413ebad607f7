package mail

import "crypto/tls"

// tlsConfig is the client TLS configuration for STARTTLS and implicit TLS:
// the certificate must name the host we dialled, and nothing older than
// TLS 1.2 is spoken (mail servers that only offer older versions are
// refused rather than silently downgraded).
func tlsConfig(host string) *tls.Config {
	return &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
}
