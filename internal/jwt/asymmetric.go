package jwt

import (
	"errors"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// ErrNoAsymmetricKey is returned by SignAsymmetric when the project has
// only a shared secret: what it signs could not be checked by anyone who
// does not hold that secret.
var ErrNoAsymmetricKey = errors.New("no asymmetric signing key")

// SignAsymmetric signs claims with the project's asymmetric key, for
// tokens that other parties verify from the JWKS (OpenID Connect ID
// tokens): the key set's signing key when it is RS256 or ES256, else the
// ES256 key of keys.json. The header names the key's kid.
func (k *Keys) SignAsymmetric(claims gojwt.Claims) (string, error) {
	if sk := k.signingKey(); sk != nil && sk.private != nil {
		t := gojwt.NewWithClaims(gojwt.GetSigningMethod(sk.Alg), claims)
		t.Header["kid"] = sk.KID
		return t.SignedString(sk.private)
	}
	if k.EC == nil {
		return "", ErrNoAsymmetricKey
	}
	t := gojwt.NewWithClaims(gojwt.SigningMethodES256, claims)
	t.Header["kid"] = k.KID
	return t.SignedString(k.EC)
}

// SigningAlgs lists the algorithms SignAsymmetric can sign with, for
// discovery documents.
func (k *Keys) SigningAlgs() []string {
	var algs []string
	if sk := k.signingKey(); sk != nil && sk.private != nil {
		algs = append(algs, sk.Alg)
	} else if k.EC != nil {
		algs = append(algs, "ES256")
	}
	return algs
}
