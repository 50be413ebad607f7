package auth

import (
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// redirectTarget returns where a flow should send the browser: the
// request's redirect_to when the allow-list accepts it, else the Referer
// when accepted, else the site URL. Never an error, as in the reference.
func (s *Service) redirectTarget(r *http.Request, fromBody string) string {
	for _, c := range []string{r.URL.Query().Get("redirect_to"), fromBody, r.Referer()} {
		if c != "" && s.redirectAllowed(c) {
			return c
		}
	}
	return s.cfg.SiteURL
}

// redirectAllowed applies contract §4.3: same scheme and host as the site
// URL (any port on localhost), any loopback literal, or an allow-list glob.
func (s *Service) redirectAllowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return false
	}
	if site, err := url.Parse(s.cfg.SiteURL); err == nil {
		if u.Scheme == site.Scheme && u.Host == site.Host {
			return true
		}
		if u.Hostname() == "localhost" && site.Hostname() == "localhost" {
			return true
		}
	}
	// Loopback is always fine: only the user's own machine can receive it.
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
		return true
	}
	// The fragment never takes part in matching.
	u.Fragment = ""
	target := u.String()
	for _, pattern := range s.cfg.URIAllowList {
		if globMatch(pattern, target) {
			return true
		}
	}
	return false
}

// globMatch matches a GoTrue allow-list glob: * stops at . and /, ** does not.
func globMatch(pattern, s string) bool {
	if pattern == s {
		return true
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case pattern[i] == '*':
			b.WriteString(`[^./]*`)
		case pattern[i] == '?':
			b.WriteString(`[^./]`)
		default:
			b.WriteString(regexp.QuoteMeta(string(pattern[i])))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
