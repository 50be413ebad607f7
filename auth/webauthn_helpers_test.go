package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// softKey is a software WebAuthn authenticator: an ES256 key pair that
// answers creation options with a "none" attestation and request options
// with an assertion, as a browser's navigator.credentials would, in the
// JSON auth-js sends. rpID and origin are what it claims, so a test can
// make it lie about either.
type softKey struct {
	t          *testing.T
	rpID       string
	origin     string
	id         []byte
	key        *ecdsa.PrivateKey
	userHandle []byte
	count      uint32
}

func newSoftKey(t *testing.T, rpID, origin string) *softKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &softKey{t: t, rpID: rpID, origin: origin, id: id, key: k}
}

// clone is the same key pair and credential id claiming another relying
// party id and origin.
func (k *softKey) clone(rpID, origin string) *softKey {
	c := *k
	c.rpID, c.origin = rpID, origin
	return &c
}

var b64 = base64.RawURLEncoding

// str reads a string at a path of nested JSON objects.
func str(m map[string]any, path ...string) string {
	for _, p := range path[:len(path)-1] {
		m, _ = m[p].(map[string]any)
	}
	s, _ := m[path[len(path)-1]].(string)
	return s
}

func (k *softKey) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": k.origin, "crossOrigin": false})
	return b
}

func (k *softKey) authData(flags byte, extra []byte) []byte {
	h := sha256.Sum256([]byte(k.rpID))
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, k.count)
	return append(out, extra...)
}

// create answers PublicKeyCredentialCreationOptions (JSON form).
func (k *softKey) create(opts map[string]any) map[string]any {
	k.t.Helper()
	uh, err := b64.DecodeString(str(opts, "user", "id"))
	if err != nil {
		k.t.Fatalf("user.id %q: %v", str(opts, "user", "id"), err)
	}
	k.userHandle = uh
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1,
		-2: k.key.X.FillBytes(make([]byte, 32)), -3: k.key.Y.FillBytes(make([]byte, 32))})
	if err != nil {
		k.t.Fatal(err)
	}
	cred := make([]byte, 16) // zero AAGUID
	cred = binary.BigEndian.AppendUint16(cred, uint16(len(k.id)))
	cred = append(append(cred, k.id...), cose...)
	// user present, user verified, attested credential data
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(0x45, cred)})
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"response": map[string]any{"attestationObject": b64.EncodeToString(att),
			"clientDataJSON": b64.EncodeToString(k.clientData("webauthn.create", str(opts, "challenge"))), "transports": []string{"usb"}},
		"clientExtensionResults": map[string]any{}, "authenticatorAttachment": "cross-platform",
	}
}

// get answers PublicKeyCredentialRequestOptions (JSON form), signing with
// a counter one higher than the last.
func (k *softKey) get(opts map[string]any) map[string]any {
	k.t.Helper()
	k.count++
	ad := k.authData(0x05, nil)
	cd := k.clientData("webauthn.get", str(opts, "challenge"))
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		k.t.Fatal(err)
	}
	return map[string]any{
		"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"response": map[string]any{"authenticatorData": b64.EncodeToString(ad), "clientDataJSON": b64.EncodeToString(cd),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(k.userHandle)},
		"clientExtensionResults": map[string]any{}, "authenticatorAttachment": "cross-platform",
	}
}

// badSignature is an assertion whose signature does not match its data.
func badSignature(a map[string]any) map[string]any {
	r := a["response"].(map[string]any)
	sig, _ := b64.DecodeString(r["signature"].(string))
	sig[len(sig)-1] ^= 0x01
	r["signature"] = b64.EncodeToString(sig)
	return a
}

// Test relying party settings.
const (
	testRPID   = "localhost"
	testOrigin = "http://localhost:5173"
)

func webAuthnOn(c *Config) {
	c.MailerAutoconfirm = true
	c.WebAuthn.RPID = testRPID
	c.WebAuthn.RPDisplayName = "Basalt tests"
	c.WebAuthn.RPOrigins = []string{testOrigin}
	c.WebAuthn.PasskeyEnabled = true
	c.WebAuthn.MFAEnroll = true
	c.WebAuthn.MFAVerify = true
}
