package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
)

// Password guessing is limited per account and client address, in
// Postgres so that every process of a project counts alike (the design and
// its trade-offs are in auth/README.md, "Password guessing"):
//
//   - each address gets RateLimits.PasswordFailures wrong passwords on an
//     account for free; after that each further attempt from it must wait
//     a delay that doubles with every failure, up to PasswordMaxDelay.
//     Waiting attempts are refused before the password is looked at, so
//     they teach the guesser nothing;
//   - once an account has PasswordAccountFailures failures from all
//     addresses together, the delays apply to every address that has
//     failed on it, which slows guessing spread over many addresses;
//   - an address over its per-IP /token budget (the reference's key) may
//     still try each account it has not failed on lately, so the real users
//     behind a shared address keep signing in while the guesser waits;
//   - a correct password clears the failures of its account and address.
//
// An address with no failures on an account is never delayed on it: an
// attacker elsewhere cannot lock a user out.
const (
	// failureMemory is how long an account and address's failures are
	// remembered after the last one.
	failureMemory = 24 * time.Hour
	// firstDelay is the first wait once the free failures are used up.
	firstDelay = time.Second
	// tokenWindow is the per-IP /token budget's period, the reference's.
	tokenWindow = 5 * time.Minute
	// sweepBatch bounds the stale rows one successful sign-in deletes.
	sweepBatch = 100
)

// accountKey names the account a password attempt is for: the normalised
// email address or phone number, hashed so that addresses typed for no
// account are not kept in clear.
func accountKey(kind, id string) string {
	sum := sha256.Sum256([]byte(kind + ":" + id))
	return hex.EncodeToString(sum[:])
}

// claimPasswordAttempt counts one password attempt on account from ip and
// reports whether it may be checked now. The count is taken before the
// password is checked and taken back by passwordAccepted, in one
// statement, so racing attempts each see the ones before them. hot says
// ip is over its per-IP budget: then a pair that failed within the budget's
// window waits for the window to end.
func (s *Service) claimPasswordAttempt(ctx context.Context, account, ip string, hot bool) (bool, error) {
	rl := s.cfg.RateLimits
	accountFree := int64(math.MaxInt32)
	if rl.PasswordAccountFailures > 0 {
		accountFree = int64(rl.PasswordAccountFailures)
	}
	now := s.now()
	// The delay's exponent is how far past its free failures the pair, or
	// the whole account, is: 1 s, 2 s, 4 s, ... capped. The account's sum
	// is read from the statement's snapshot; the pair's own count is the
	// locked row's latest, which is what keeps racing attempts exact.
	const q = `WITH acct AS (
		SELECT coalesce(sum(failures), 0) AS n FROM auth.password_failures WHERE account = $1 AND last_failed_at > $4)
	INSERT INTO auth.password_failures AS f (account, ip, failures, last_failed_at) VALUES ($1, $2, 1, $3)
	ON CONFLICT (account, ip) DO UPDATE
	SET failures = CASE WHEN f.last_failed_at <= $4 THEN 1 ELSE f.failures + 1 END, last_failed_at = $3
	WHERE f.last_failed_at <= $4
		OR ((NOT $5 OR f.last_failed_at <= $6)
			AND f.last_failed_at + make_interval(secs => CASE
				WHEN greatest(f.failures - $7, (SELECT n FROM acct) - $8) < 0 THEN 0
				ELSE least($9::float8, $10::float8 * power(2, least(greatest(f.failures - $7, (SELECT n FROM acct) - $8), 30)))
			END) <= $3)
	RETURNING f.failures`
	var n int
	err := s.db.QueryRow(ctx, q, account, ip, now, now.Add(-failureMemory), hot, now.Add(-tokenWindow),
		rl.PasswordFailures, accountFree, rl.PasswordMaxDelay.Seconds(), firstDelay.Seconds()).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("count password attempt: %w", err)
	}
	return true, nil
}

// passwordAccepted clears the failures of account from ip once its
// password proved right, and sweeps a few rows nobody remembers any more.
func (s *Service) passwordAccepted(ctx context.Context, account, ip string) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM auth.password_failures WHERE account = $1 AND ip = $2`, account, ip)
	b.Queue(`DELETE FROM auth.password_failures WHERE ctid = ANY (ARRAY(
		SELECT ctid FROM auth.password_failures WHERE last_failed_at <= $1 LIMIT $2))`, s.now().Add(-failureMemory), sweepBatch)
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("clear password failures: %w", err)
	}
	return nil
}
