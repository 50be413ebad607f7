package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/crypto/bcrypt"
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

func tooLongPassword() *apiError {
	return badRequest("validation_failed", "Password cannot be longer than %d characters", maxPasswordBytes)
}

func (s *Service) hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// passwordMatches compares pw with a bcrypt hash; an empty hash never matches.
func passwordMatches(hash, pw string) bool {
	if hash == "" {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}

var emailRE = regexp.MustCompile(`^[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)

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

var phoneRE = regexp.MustCompile(`^[1-9][0-9]{1,14}$`)

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
