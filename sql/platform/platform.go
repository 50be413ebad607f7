// Package platform embeds Basalt's own SQL migrations: roles, and the auth,
// storage and realtime schemas. They are applied before an app's migrations.
package platform

import "embed"

// FS holds the platform migrations, named NNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
