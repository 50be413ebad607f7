package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// userByConfirmationToken finds the user an invitation (or sign-up
// confirmation) link was mailed to by the token in that link; SSO users
// have none. The regex repeats the token index's predicate.
func userByConfirmationToken(ctx context.Context, db pg.DB, token string) (*user, error) {
	return loadUser(ctx, db, `u.confirmation_token = $1 AND u.confirmation_token !~ '^[0-9 ]*$' AND u.is_sso_user = false`, token)
}

// checkInviteToken is /authorize's check of an invite_token, with the
// reference's answer for one that names no one.
func (s *Service) checkInviteToken(ctx context.Context, token string) error {
	_, err := userByConfirmationToken(ctx, s.db, token)
	if errors.Is(err, pg.ErrNotFound) {
		return notFound("user_not_found", "User identified by token not found")
	}
	return err
}

// acceptInvite completes an invitation with a provider identity, as the
// reference's processInvite does: the invited user (found by the token of
// the invitation link) must have one of the provider's addresses; the
// identity joins that user, whatever else the unconfirmed account had
// goes, and the address counts as confirmed, since only its owner got the
// link. Sign-up settings do not apply: the user exists already.
func (s *Service) acceptInvite(ctx context.Context, tx pgx.Tx, r *http.Request, pu *providerUser, provider, token string) (*user, error) {
	u, err := userByConfirmationToken(ctx, tx, token)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, notFound("invite_not_found", "Invite not found")
	}
	if err != nil {
		return nil, err
	}
	var emails []string
	match := false
	for _, e := range pu.Emails {
		emails = append(emails, e.Email)
		// Addresses are kept lower-cased here; providers may not.
		if u.Email != "" && strings.EqualFold(e.Email, u.Email) {
			match = true
			break
		}
	}
	if !match {
		return nil, &apiError{Status: http.StatusBadRequest, Code: "validation_failed",
			Message: "Invited email does not match emails from external provider",
			Cause:   fmt.Errorf("invited=%s external=%s", u.Email, strings.Join(emails, ", "))}
	}
	idn, err := s.insertIdentity(ctx, tx, u, provider, pu.Claims.identityData())
	if err != nil {
		return nil, err
	}
	if err := s.audit(ctx, tx, r, u, "invite_accepted", map[string]any{"provider": provider}); err != nil {
		return nil, err
	}
	if err := s.removeUnconfirmedIdentities(ctx, tx, u, idn); err != nil {
		return nil, err
	}
	if err := s.confirmEmail(ctx, tx, u); err != nil {
		return nil, err
	}
	if u, err = userByID(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	if u.isBanned(s.now()) {
		return nil, forbidden("user_banned", "User is banned")
	}
	return u, nil
}
