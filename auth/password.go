package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/internal/lazy"
)

// weakPassword is attached to weak_password errors and to sign-in
// responses whose (correct) password no longer meets the policy.
type weakPassword struct {
	Message string   `json:"message"`
	Reasons []string `json:"reasons"`
}

// checkPassword applies the password policy: minimum length and required
// character sets. It returns a 422 weak_password error or nil.
func (s *Service) checkPassword(pw string) *apiError {
	if wp := s.weakness(pw); wp != nil {
		return &apiError{Status: 422, Code: "weak_password", Message: wp.Message, Weak: wp}
	}
	return nil
}

// weakness lists what pw lacks, or returns nil. Length counts characters,
// not bytes, so a password in any script gets the same minimum; one
// message per failed rule, joined, in the reference's wording and order.
func (s *Service) weakness(pw string) *weakPassword {
	var msgs, reasons []string
	if len([]rune(pw)) < s.cfg.PasswordMinLength {
		msgs = append(msgs, fmt.Sprintf("Password should be at least %d characters.", s.cfg.PasswordMinLength))
		reasons = append(reasons, "length")
	}
	for _, set := range s.cfg.PasswordRequiredCharacters {
		if set != "" && !strings.ContainsAny(pw, set) {
			msgs = append(msgs, "Password should contain at least one character of each: "+
				strings.Join(s.cfg.PasswordRequiredCharacters, ", ")+".")
			reasons = append(reasons, "characters")
			break
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	return &weakPassword{Message: strings.Join(msgs, " "), Reasons: reasons}
}

// maxPasswordBytes is bcrypt's input limit; the reference rejects longer.
const maxPasswordBytes = 72

// tooLongPassword is the error for a password over maxPasswordBytes.
func tooLongPassword() *apiError {
	return badRequest("validation_failed", "Password cannot be longer than %d characters", maxPasswordBytes)
}

// hashPassword hashes pw with bcrypt at the configured cost, on the hash
// pool (a 429 when it is full). bcrypt salts each hash and is slow on
// purpose: the cost is what makes a stolen users table expensive to crack,
// and what bounds sign-in throughput.
func (s *Service) hashPassword(pw string) (string, error) {
	var h []byte
	var err error
	if perr := s.hashes.do(func() { h, err = bcrypt.GenerateFromPassword([]byte(pw), s.cfg.BcryptCost) }); perr != nil {
		return "", perr
	}
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// signInPassword reports whether pw is the password of an account whose
// stored hash is hash ("" for an unknown account or one without a
// password). Either way it does one bcrypt comparison at the configured
// cost, so a sign-in takes as long for an address without an account as
// for a wrong password and its timing does not reveal which addresses
// have accounts. The error is the hash pool's 429.
func (s *Service) signInPassword(hash, pw string) (bool, error) {
	if len(pw) > maxPasswordBytes {
		return false, nil // refused before any hashing, for every account alike
	}
	if hash == "" {
		err := s.hashes.do(func() { _ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(pw)) })
		return false, err
	}
	return s.passwordMatches(hash, pw)
}

// dummyHash is a bcrypt hash of a random password at the configured cost,
// made on first use (it costs as much as a sign-in) and kept.
func (s *Service) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		h, err := bcrypt.GenerateFromPassword([]byte(randomPassword()), s.cfg.BcryptCost)
		if err != nil {
			panic(err) // only for a cost outside the range Validate allows
		}
		s.dummy = h
	})
	return s.dummy
}

// passwordMatches compares pw with a bcrypt hash on the hash pool; an empty
// hash never matches (and costs nothing).
func (s *Service) passwordMatches(hash, pw string) (bool, error) {
	if hash == "" {
		return false, nil
	}
	var ok bool
	err := s.hashes.do(func() { ok = bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil })
	return ok, err
}

// emailRE is the address syntax the reference accepts: an HTML5-style
// local part and DNS labels. Deliverability is left to the confirmation
// mail, so no MX lookups are made.
var emailRE = lazy.NewRegexp(`^[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)

// validateEmail lowercases and checks an address with GoTrue's messages.
func validateEmail(email string) (string, *apiError) {
	email = strings.ToLower(strings.TrimSpace(email))
	switch {
	case email == "":
		return "", badRequest("validation_failed", "An email address is required")
	case len(email) > 255:
		return "", badRequest("validation_failed", "An email address is too long")
	case !emailRE.MatchString(email):
		return "", badRequest("validation_failed", "Unable to validate email address: invalid format")
	}
	return email, nil
}

// phoneRE is an E.164 number without its +: a country code not starting
// with 0, at most 15 digits in all.
var phoneRE = lazy.NewRegexp(`^[1-9][0-9]{1,14}$`)

// validatePhone strips formatting and a leading + and checks E.164.
func validatePhone(phone string) (string, *apiError) {
	p := strings.TrimPrefix(strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '(' || r == ')' {
			return -1
		}
		return r
	}, strings.TrimSpace(phone)), "+")
	if !phoneRE.MatchString(p) {
		return "", badRequest("validation_failed", "Invalid phone number format (E.164 required)")
	}
	return p, nil
}

// otpHash is the stored form of an OTP: hex SHA-224 of the address and the
// code, as the reference stores it.
func otpHash(addr, otp string) string {
	sum := sha256.Sum224([]byte(addr + otp))
	return hex.EncodeToString(sum[:])
}
