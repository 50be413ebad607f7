package realtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// tokenError is a token the reference refuses: code is the join error's
// prefix (InvalidJWTToken, MalformedJWT, JwtSignatureError) and msg the
// text after it, which also goes into system messages.
type tokenError struct {
	code string
	msg  string
	// status and upgrade are the refused-upgrade form of the same error.
	upgrade string
}

func (e *tokenError) Error() string { return e.code + ": " + e.msg }

// Messages of the reference's JWT checks.
const (
	msgMissingClaims = "Fields `role` and `exp` are required in JWT"
	msgMalformedJWT  = "The token provided is not a valid JWT"
	msgBadSignature  = "Failed to validate JWT signature"
)

// verifyToken checks a channel or socket token as the reference does: a
// valid signature, role and exp present, exp strictly in the future (the
// reference allows no clock skew here).
func (s *Service) verifyToken(token string) (*jwt.Claims, error) {
	now := s.now()
	claims, err := s.keys.Verify(token, now)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, expiredError(token, now)
	case errors.Is(err, jwt.ErrMalformed):
		return nil, &tokenError{code: "MalformedJWT", msg: msgMalformedJWT, upgrade: msgMalformedJWT}
	case err != nil:
		return nil, &tokenError{code: "JwtSignatureError", msg: msgBadSignature, upgrade: msgBadSignature}
	}
	if claims.Role == "" || claims.Expires.IsZero() {
		return nil, &tokenError{code: "InvalidJWTToken", msg: msgMissingClaims, upgrade: msgMissingClaims}
	}
	if !claims.Expires.After(now) {
		return nil, expiredError(token, now)
	}
	// A role outside the allow-list is refused here, at the upgrade and
	// the join alike, as REST, storage and functions refuse it.
	if pg.APIRoles().Check(claims.Role) != nil {
		msg := fmt.Sprintf("The role %q in the JWT is not allowed", claims.Role)
		return nil, &tokenError{code: "InvalidJWTToken", msg: msg, upgrade: msg}
	}
	return claims, nil
}

// expiredError words an expired token: "Token has expired N seconds ago".
func expiredError(token string, now time.Time) error {
	secs := int64(0)
	if c, err := jwt.ParseUnverified(token); err == nil && !c.Expires.IsZero() {
		secs = now.Unix() - c.Expires.Unix()
	}
	return &tokenError{code: "InvalidJWTToken", msg: fmt.Sprintf("Token has expired %d seconds ago", secs),
		upgrade: "Token has expired"}
}
