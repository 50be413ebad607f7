// Package platform embeds Basalt's own SQL migrations: roles, and the auth,
// storage and realtime schemas. They are applied before an app's migrations.
package platform

import (
	"embed"

	"github.com/basaltdev/basalt/internal/migrate"
)

// FS holds the platform migrations, named NNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS

// Source is the platform migrations as a migration source. After them it
// sets the default privileges the API roles get on new tables, views and
// functions in public: none (0028, Supabase's default since 2026-10-30),
// or with publicGrants everything, as every Supabase project had before.
func Source(publicGrants bool) migrate.Source {
	return migrate.Source{Name: "platform", FS: FS, After: DefaultPrivileges(publicGrants)}
}

// DefaultPrivileges is the statement that sets those default privileges.
// Sequences keep theirs: a serial column's sequence is of use to a role only
// once the table is granted to it.
func DefaultPrivileges(publicGrants bool) string {
	if publicGrants {
		return `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON ROUTINES TO anon, authenticated, service_role`
	}
	return `ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON ROUTINES FROM anon, authenticated, service_role`
}
