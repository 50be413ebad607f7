package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/xml"
	"html"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/crewjam/saml"
	"github.com/crewjam/saml/logger"
)

// Generating RSA keys is slow; every test shares one service provider
// key and one identity provider key.
var (
	samlKeysOnce   sync.Once
	spKey, idpKey  *rsa.PrivateKey
	samlKeysFailed error
)

func samlKeys(t *testing.T) (*rsa.PrivateKey, *rsa.PrivateKey) {
	t.Helper()
	samlKeysOnce.Do(func() {
		if spKey, samlKeysFailed = rsa.GenerateKey(rand.Reader, 2048); samlKeysFailed == nil {
			idpKey, samlKeysFailed = rsa.GenerateKey(rand.Reader, 2048)
		}
	})
	if samlKeysFailed != nil {
		t.Fatal(samlKeysFailed)
	}
	return spKey, idpKey
}

// withSAML turns SSO on with the shared service provider key.
func withSAML(t *testing.T) func(*Config) {
	k, _ := samlKeys(t)
	return func(c *Config) { c.SAML = SAMLConfig{Enabled: true, PrivateKey: k} }
}

// samlIdP is a real SAML identity provider (crewjam/saml's
// IdentityProvider: signed responses, the HTTP-Redirect and HTTP-POST
// bindings) serving Basalt as its service provider. next is who the next
// sign-in is.
type samlIdP struct {
	idp  *saml.IdentityProvider
	srv  *httptest.Server
	sp   *saml.EntityDescriptor
	mu   sync.Mutex
	next *saml.Session
}

func startSAMLIdP(t *testing.T, e *env) *samlIdP {
	t.Helper()
	_, key := samlKeys(t)
	r := e.req("GET", "/sso/saml/metadata", nil, "")
	sp := &saml.EntityDescriptor{}
	if err := xml.Unmarshal(r.Body, sp); r.Status != 200 || err != nil {
		t.Fatalf("service provider metadata %d %v %s", r.Status, err, r.Body)
	}
	p := &samlIdP{sp: sp}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	base, _ := url.Parse(p.srv.URL)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test idp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	md, sso := *base, *base
	md.Path, sso.Path = "/metadata", "/sso"
	p.idp = &saml.IdentityProvider{Key: key, Signer: key, Certificate: cert, MetadataURL: md, SSOURL: sso,
		Logger: logger.DefaultLogger, ServiceProviderProvider: p, SessionProvider: p}
	mux.HandleFunc("/metadata", p.idp.ServeMetadata)
	mux.HandleFunc("/sso", p.idp.ServeSSO)
	return p
}

// GetServiceProvider implements saml.ServiceProviderProvider: Basalt.
func (p *samlIdP) GetServiceProvider(_ *http.Request, id string) (*saml.EntityDescriptor, error) {
	if id != p.sp.EntityID {
		return nil, os.ErrNotExist
	}
	return p.sp, nil
}

// GetSession implements saml.SessionProvider: the queued user.
func (p *samlIdP) GetSession(w http.ResponseWriter, _ *http.Request, _ *saml.IdpAuthnRequest) *saml.Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == nil {
		http.Error(w, "no one to sign in", http.StatusForbidden)
		return nil
	}
	s := p.next
	now := time.Now()
	s.ID, s.CreateTime, s.ExpireTime, s.Index = newUUID(), now, now.Add(time.Hour), newUUID()
	return s
}

// signInAs queues the next user: a persistent NameID, an email, a name.
func (p *samlIdP) signInAs(nameID, email, name string) {
	p.mu.Lock()
	p.next = &saml.Session{NameID: nameID, NameIDFormat: string(saml.PersistentNameIDFormat), UserEmail: email, UserCommonName: name}
	p.mu.Unlock()
}

// metadataXML is the identity provider's metadata document.
func (p *samlIdP) metadataXML(t *testing.T) string {
	t.Helper()
	b, err := xml.Marshal(p.idp.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	formAction = regexp.MustCompile(`action="([^"]*)"`)
	formInput  = regexp.MustCompile(`name="(SAMLResponse|RelayState)" value="([^"]*)"`)
)

// authenticate follows an SSO URL to the identity provider and returns
// the form its page posts to Basalt's ACS, as a browser would send it.
func (p *samlIdP) authenticate(t *testing.T, ssoURL string) (action string, form url.Values) {
	t.Helper()
	res, err := http.Get(ssoURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	body := string(b)
	m := formAction.FindStringSubmatch(body)
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("identity provider answered %d: %s", res.StatusCode, body)
	}
	form = url.Values{}
	for _, in := range formInput.FindAllStringSubmatch(body, -1) {
		form.Set(in[1], html.UnescapeString(in[2]))
	}
	return html.UnescapeString(m[1]), form
}

var samlRequestInput = regexp.MustCompile(`name="SAMLRequest" value="([^"]*)"`)

// logoutRequest is the identity provider's signed LogoutRequest for the
// user nameID, base64 as its HTTP-POST binding sends it to destination.
// crewjam/saml builds logout requests on its service provider side, so one
// holding the identity provider's key and entity id makes it.
func (p *samlIdP) logoutRequest(t *testing.T, destination, nameID string) string {
	t.Helper()
	_, key := samlKeys(t)
	as := &saml.ServiceProvider{EntityID: p.idp.MetadataURL.String(), Key: key, Certificate: p.idp.Certificate,
		SignatureMethod: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", IDPMetadata: p.idp.Metadata()}
	req, err := as.MakeLogoutRequest(destination, nameID)
	if err != nil {
		t.Fatal(err)
	}
	m := samlRequestInput.FindSubmatch(req.Post(""))
	if m == nil {
		t.Fatal("no SAMLRequest in the logout form")
	}
	return html.UnescapeString(string(m[1]))
}
