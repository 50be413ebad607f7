package auth

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// logTypes groups audit actions the way the reference's audit log does.
var logTypes = map[string]string{
	"login": "account", "logout": "account", "invite_accepted": "account",
	"user_signedup": "team", "user_invited": "team", "user_deleted": "team",
	"user_modified": "user", "user_recovery_requested": "user", "user_reauthenticate_requested": "user",
	"user_confirmation_requested": "user", "user_repeated_signup": "user", "user_updated_password": "user",
	"token_revoked": "token", "token_refreshed": "token",
	"factor_in_progress": "factor", "factor_unenrolled": "factor", "mfa_code_login": "factor",
	"identity_linked": "user", "identity_unlinked": "user",
	"passkey_created": "user", "passkey_updated": "user", "passkey_deleted": "user",
}

// audit appends an entry to auth.audit_log_entries in the reference's
// payload shape, inside the caller's transaction (or on the pool).
func (s *Service) audit(ctx context.Context, db pg.DB, r *http.Request, u *user, action string, traits map[string]any) error {
	if _, err := db.Exec(ctx, auditInsert, s.auditArgs(r, u, action, traits)...); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// queueAudit adds the audit insert to a batch, for flows that send their
// writes in one round trip (sign-in, refresh).
func (s *Service) queueAudit(b *pgx.Batch, r *http.Request, u *user, action string, traits map[string]any) {
	b.Queue(auditInsert, s.auditArgs(r, u, action, traits)...)
}

// auditInsert writes one entry. ip_address is a varchar, not inet, in the
// reference's table, so an empty or odd address is stored as given rather
// than failing the request it records.
const auditInsert = `INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
	VALUES ($1, $2, $3, $4, $5)`

// auditArgs builds the entry's values: the payload in the reference's
// shape (actor_id, actor_username, actor_name from user_metadata.full_name,
// log_type, traits), which the Supabase dashboard and log tooling parse.
func (s *Service) auditArgs(r *http.Request, u *user, action string, traits map[string]any) []any {
	actor := map[string]any{"action": action, "log_type": logTypes[action], "actor_via_sso": false}
	if u != nil {
		actor["actor_id"] = u.ID
		name := u.Email
		if name == "" {
			name = u.Phone
		}
		actor["actor_username"] = name
		if md, ok := u.UserMetadata["full_name"].(string); ok && md != "" {
			actor["actor_name"] = md
		}
	}
	if len(traits) > 0 {
		actor["traits"] = traits
	}
	ip := ""
	if r != nil {
		ip = httpx.ClientIP(r)
	}
	return []any{instanceID, newUUID(), actor, s.now(), ip}
}
