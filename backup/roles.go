package backup

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
)

// Role is a cluster role as the backup saw it. pg_dump leaves roles out
// (they belong to the cluster, not the database), but the dump's grants
// name them, so restore must create the missing ones first.
type Role struct {
	Name       string   `json:"name"`
	Superuser  bool     `json:"superuser,omitempty"`
	Login      bool     `json:"login,omitempty"`
	Inherit    bool     `json:"inherit,omitempty"`
	CreateRole bool     `json:"createrole,omitempty"`
	CreateDB   bool     `json:"createdb,omitempty"`
	BypassRLS  bool     `json:"bypassrls,omitempty"`
	MemberOf   []string `json:"member_of,omitempty"`
	// Settings are the role's own configuration (ALTER ROLE … SET), e.g.
	// statement_timeout of anon or pgrst.* of authenticator.
	Settings []string `json:"settings,omitempty"`
}

// readRoles lists every role except PostgreSQL's predefined pg_* ones.
func readRoles(ctx context.Context, tx pgx.Tx) ([]Role, error) {
	rows, err := tx.Query(ctx, `
		SELECT r.rolname, r.rolsuper, r.rolcanlogin, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
		  coalesce((SELECT array_agg(g.rolname ORDER BY g.rolname) FROM pg_auth_members m
		            JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND g.rolname !~ '^pg_'), '{}'),
		  coalesce((SELECT s.setconfig FROM pg_db_role_setting s WHERE s.setrole = r.oid AND s.setdatabase = 0), '{}')
		FROM pg_roles r WHERE r.rolname !~ '^pg_' ORDER BY r.rolname`)
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Role, error) {
		var r Role
		err := row.Scan(&r.Name, &r.Superuser, &r.Login, &r.Inherit, &r.CreateRole, &r.CreateDB, &r.BypassRLS, &r.MemberOf, &r.Settings)
		return r, err
	})
}

// createMissingRoles creates the roles the target cluster lacks, with their
// attributes, memberships and settings, and leaves existing roles alone.
// Superusers of the source (the bootstrap "postgres" owning everything in
// dev) come back as plain NOLOGIN roles: only their names are needed, for
// the grants and default privileges that mention them. Passwords are never
// in a backup; basalt serve sets authenticator's from its configuration.
func createMissingRoles(ctx context.Context, tx pgx.Tx, roles []Role) ([]string, error) {
	var created []Role
	for _, r := range roles {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, r.Name).Scan(&exists); err != nil {
			return nil, fmt.Errorf("look up role %s: %w", r.Name, err)
		}
		if exists {
			continue
		}
		if _, err := tx.Exec(ctx, "CREATE ROLE "+ident(r.Name)+roleAttributes(r)); err != nil {
			return nil, fmt.Errorf("create role %s: %w", r.Name, err)
		}
		created = append(created, r)
	}
	names := make([]string, 0, len(created))
	for _, r := range created {
		names = append(names, r.Name)
		for _, g := range r.MemberOf {
			if _, err := tx.Exec(ctx, "GRANT "+ident(g)+" TO "+ident(r.Name)); err != nil {
				return nil, fmt.Errorf("grant role %s to %s: %w", g, r.Name, err)
			}
		}
		for _, s := range r.Settings {
			stmt, err := alterRoleSet(r.Name, s)
			if err != nil {
				return nil, err
			}
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("role %s setting %s: %w", r.Name, s, err)
			}
		}
	}
	return names, nil
}

func roleAttributes(r Role) string {
	if r.Superuser {
		return " NOLOGIN"
	}
	attr := func(on bool, yes, no string) string {
		if on {
			return " " + yes
		}
		return " " + no
	}
	return attr(r.Login, "LOGIN", "NOLOGIN") + attr(r.Inherit, "INHERIT", "NOINHERIT") +
		attr(r.CreateRole, "CREATEROLE", "NOCREATEROLE") + attr(r.CreateDB, "CREATEDB", "NOCREATEDB") +
		attr(r.BypassRLS, "BYPASSRLS", "NOBYPASSRLS")
}

var settingName = lazy.NewRegexp(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// listSettings hold lists; pg_db_role_setting keeps them as "a, b", which
// must come back as separate values, not one quoted string.
var listSettings = []string{"search_path", "temp_tablespaces", "local_preload_libraries", "session_preload_libraries"}

// alterRoleSet rebuilds "ALTER ROLE r SET name = value" from a setconfig entry.
func alterRoleSet(role, entry string) (string, error) {
	name, value, ok := strings.Cut(entry, "=")
	if !ok || !settingName.MatchString(name) {
		return "", fmt.Errorf("role %s: unreadable setting %q", role, entry)
	}
	var vals []string
	if slices.Contains(listSettings, strings.ToLower(name)) {
		for _, v := range strings.Split(value, ",") {
			vals = append(vals, literal(strings.Trim(strings.TrimSpace(v), `"`)))
		}
	} else {
		vals = []string{literal(value)}
	}
	return fmt.Sprintf("ALTER ROLE %s SET %s = %s", ident(role), name, strings.Join(vals, ", ")), nil
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
