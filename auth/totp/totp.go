// Package totp implements RFC 6238 time-based one-time passwords (SHA-1,
// 6 digits, 30 s steps, the parameters authenticator apps assume), otpauth
// URIs, and QR codes as SVG markup for enrolment screens.
package totp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"time"

	"rsc.io/qr"
)

// Period is the time step; Digits the code length.
const (
	Period = 30
	Digits = 6
)

// b32 is the secret's encoding: RFC 4648 base32 without padding, the form
// otpauth URIs carry and users type in by hand.
var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewSecret returns a random 160-bit secret, base32 without padding: the
// secret length RFC 4226 recommends.
func NewSecret() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return b32.EncodeToString(b)
}

// Code returns the code for secret at t.
func Code(secret string, t time.Time) (string, error) {
	key, err := b32.DecodeString(strings.ToUpper(strings.TrimRight(secret, "=")))
	if err != nil {
		return "", fmt.Errorf("decode totp secret: %w", err)
	}
	return code(key, uint64(t.Unix()/Period)), nil
}

// code is RFC 4226 HOTP for one counter: HMAC-SHA1 of the big-endian
// counter, dynamic truncation at the offset the last nibble names, then the
// low six decimal digits.
func code(key []byte, counter uint64) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m := hmac.New(sha1.New, key)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	return fmt.Sprintf("%06d", v%1000000)
}

// Match reports whether c is the code for t or one step either side, and
// the time step (Unix time / Period) it is the code of. A verifier records
// the step it accepted and refuses it, and earlier ones, afterwards: RFC
// 6238 §5.2 forbids accepting one code twice.
func Match(secret, c string, t time.Time) (step int64, ok bool) {
	key, err := b32.DecodeString(strings.ToUpper(strings.TrimRight(secret, "=")))
	if err != nil || len(c) != Digits {
		return 0, false
	}
	// Every candidate is compared, in constant time, and the results are
	// combined afterwards, so timing does not tell which step matched. Should
	// two steps share a code, the later one is taken.
	now := t.Unix() / Period
	matched := 0
	for _, d := range []int64{-1, 0, 1} {
		eq := subtle.ConstantTimeCompare([]byte(code(key, uint64(now+d))), []byte(c))
		matched |= eq
		step = int64(subtle.ConstantTimeSelect(eq, int(now+d), int(step)))
	}
	return step, matched == 1
}

// URI is the otpauth:// URI authenticator apps import.
func URI(issuer, account, secret string) string {
	// The parameters are spelled out even though they are the defaults:
	// some apps mis-handle URIs that omit them.
	q := url.Values{"secret": {secret}, "issuer": {issuer}, "algorithm": {"SHA1"}, "digits": {"6"}, "period": {"30"}}
	return "otpauth://totp/" + url.PathEscape(issuer) + ":" + url.PathEscape(account) + "?" + q.Encode()
}

// QRSVG renders text as a QR code in SVG markup (one rect per dark module).
func QRSVG(text string) (string, error) {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", fmt.Errorf("encode qr: %w", err)
	}
	// A four-module quiet zone is what the QR specification requires for
	// scanners to find the code; the SVG scales, so one unit per module.
	const quiet = 4
	n := c.Size + 2*quiet
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/><path fill="#000000" d="`, n, n)
	for y := 0; y < c.Size; y++ {
		for x := 0; x < c.Size; x++ {
			if c.Black(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
