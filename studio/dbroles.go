package studio

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Roles on the Database screen, in postgres-meta's shapes (POST /roles,
// PATCH and DELETE /roles/{id}). Studio creates and edits ordinary roles
// only: the roles Basalt itself runs on (the API roles of sql/platform
// 0001, the bootstrap superuser, the pool's own role, any superuser) and
// PostgreSQL's and Supabase's reserved names are refused, and so are the
// attributes that reach past RLS or make roles (SUPERUSER, CREATEROLE,
// REPLICATION, BYPASSRLS): those stay a matter for SQL migrations.

// reservedRoles are the roles Basalt and its API rely on, and the names
// Supabase's own services use, as the items of a PostgreSQL array literal.
const reservedRoles = "postgres,anon,authenticated,service_role,authenticator,dashboard_user,pgbouncer"

// reservedRoleSQL is true for a reserved row of pg_roles r: one of
// reservedRoles, a pg_ or supabase_ name, a superuser, a role of initdb,
// or the role Studio connects as. GET /pg/roles shows it as reserved.
const reservedRoleSQL = `(lower(r.rolname) = ANY('{` + reservedRoles + `}') OR r.rolname ILIKE 'pg\_%' OR r.rolname ILIKE 'supabase\_%'
  OR r.rolsuper OR r.oid < 16384 OR r.rolname IN (current_user, session_user))`

// roleReserved says why Studio may not touch role name (or give a role
// that name), or "" when it may.
func roleReserved(ctx context.Context, db pgx.Tx, name string) (string, error) {
	var reserved bool
	err := db.QueryRow(ctx, `SELECT coalesce((SELECT `+reservedRoleSQL+` FROM pg_roles r WHERE r.rolname = $1),
		lower($1) = ANY('{`+reservedRoles+`}') OR $1 ILIKE 'pg\_%' OR $1 ILIKE 'supabase\_%')`, name).Scan(&reserved)
	if err != nil || !reserved {
		return "", err
	}
	return "Role " + name + " is reserved: Basalt, Supabase's services or PostgreSQL rely on it (or it is a superuser, or the role Studio connects as); change it with a SQL migration", nil
}

// roleAttrs are the attributes a create or an update may set.
type roleAttrs struct {
	Name            *string    `json:"name"`
	Password        *string    `json:"password"`
	CanLogin        *bool      `json:"can_login"`
	InheritRole     *bool      `json:"inherit_role"`
	ConnectionLimit *int       `json:"connection_limit"`
	ValidUntil      *string    `json:"valid_until"`
	MemberOf        *[]string  `json:"member_of"`
	IsSuperuser     *bool      `json:"is_superuser"`
	CanCreateRole   *bool      `json:"can_create_role"`
	CanCreateDB     *bool      `json:"can_create_db"`
	IsReplication   *bool      `json:"is_replication_role"`
	CanBypassRLS    *bool      `json:"can_bypass_rls"`
	validUntil      *time.Time // parsed ValidUntil
}

// options renders the ALTER/CREATE ROLE options of a.
func (a *roleAttrs) options() (string, error) {
	var opts []string
	flag := func(v *bool, on, off string) {
		if v != nil {
			opts = append(opts, map[bool]string{true: on, false: off}[*v])
		}
	}
	for _, f := range []struct {
		v    *bool
		name string
	}{{a.IsSuperuser, "SUPERUSER"}, {a.CanCreateRole, "CREATEROLE"}, {a.CanCreateDB, "CREATEDB"}, {a.IsReplication, "REPLICATION"}, {a.CanBypassRLS, "BYPASSRLS"}} {
		if f.v != nil && *f.v {
			return "", badRequest("Studio does not give %s: it reaches past row level security or the role system; grant it with a SQL migration", f.name)
		}
	}
	flag(a.IsSuperuser, "SUPERUSER", "NOSUPERUSER")
	flag(a.CanCreateRole, "CREATEROLE", "NOCREATEROLE")
	flag(a.CanCreateDB, "CREATEDB", "NOCREATEDB")
	flag(a.IsReplication, "REPLICATION", "NOREPLICATION")
	flag(a.CanBypassRLS, "BYPASSRLS", "NOBYPASSRLS")
	flag(a.CanLogin, "LOGIN", "NOLOGIN")
	flag(a.InheritRole, "INHERIT", "NOINHERIT")
	if a.ConnectionLimit != nil {
		if *a.ConnectionLimit < -1 {
			return "", badRequest("connection_limit must be -1 (no limit) or more")
		}
		opts = append(opts, "CONNECTION LIMIT "+strconv.Itoa(*a.ConnectionLimit))
	}
	if a.ValidUntil != nil {
		if *a.ValidUntil == "" || *a.ValidUntil == "infinity" {
			opts = append(opts, "VALID UNTIL 'infinity'")
		} else {
			t, err := time.Parse(time.RFC3339, *a.ValidUntil)
			if err != nil {
				return "", badRequest("valid_until must be a time (RFC 3339) or infinity")
			}
			opts = append(opts, "VALID UNTIL '"+t.UTC().Format("2006-01-02 15:04:05Z07:00")+"'")
		}
	}
	if a.Password != nil {
		if *a.Password == "" {
			opts = append(opts, "PASSWORD NULL")
		} else {
			if len(*a.Password) < 8 || len(*a.Password) > 1024 {
				return "", badRequest("password must have 8 to 1,024 characters")
			}
			// A SCRAM verifier, never the password: a statement that fails is
			// written to the server's log, which Studio shows.
			v, err := scramVerifier(*a.Password)
			if err != nil {
				return "", err
			}
			opts = append(opts, "PASSWORD '"+v+"'")
		}
	}
	return strings.Join(opts, " "), nil
}

// scramVerifier is PostgreSQL's SCRAM-SHA-256 secret for password (RFC
// 5802, 4096 iterations, as the server makes it; the password is used as
// given, without SASLprep).
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	const iter = 4096
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return "SCRAM-SHA-256$" + strconv.Itoa(iter) + ":" + b64(salt) + "$" + b64(stored[:]) + ":" + b64(mac(salted, "Server Key")), nil
}

// setMembership makes role a member of exactly want: grants what is
// missing, revokes what is not wanted. A superuser's membership is never
// given.
func setMembership(ctx context.Context, tx pgx.Tx, role string, want []string) error {
	rows, err := tx.Query(ctx, `SELECT b.rolname FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid
		WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = $1)`, role)
	if err != nil {
		return err
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, g := range want {
		if slices.Contains(have, g) {
			continue
		}
		var super bool
		err := tx.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = $1`, g).Scan(&super)
		if isNoRows(err) {
			return notFound("Cannot find a role named %s", g)
		} else if err != nil {
			return err
		}
		if super || g == role {
			return badRequest("Studio does not make %s a member of %s", role, g)
		}
		if err := execOne(ctx, tx, "GRANT "+ident(g)+" TO "+ident(role)); err != nil {
			return err
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) {
			if err := execOne(ctx, tx, "REVOKE "+ident(h)+" FROM "+ident(role)); err != nil {
				return err
			}
		}
	}
	return nil
}

// roleSQL is one role as GET /pg/roles lists it, with Basalt's member_of
// and reserved.
const roleSQL = `SELECT
  oid::int8 AS id, rolname AS name, rolsuper AS is_superuser, rolcreatedb AS can_create_db,
  rolcreaterole AS can_create_role, rolinherit AS inherit_role, rolcanlogin AS can_login,
  rolreplication AS is_replication_role, rolbypassrls AS can_bypass_rls,
  (SELECT count(*) FROM pg_stat_activity s WHERE s.usename = r.rolname) AS active_connections,
  CASE WHEN rolconnlimit = -1 THEN current_setting('max_connections')::int8 ELSE rolconnlimit END AS connection_limit,
  '********' AS password, rolvaliduntil AS valid_until, rolconfig AS config,
  coalesce((SELECT json_agg(b.rolname ORDER BY b.rolname) FROM pg_auth_members m JOIN pg_roles b ON b.oid = m.roleid
    WHERE m.member = r.oid), '[]') AS member_of,
  ` + reservedRoleSQL + ` AS reserved
FROM pg_roles r`

func roleJSON(ctx context.Context, db pgx.Tx, where string, arg any) ([]byte, error) {
	var out []byte
	err := db.QueryRow(ctx, `SELECT to_json(x) FROM (`+roleSQL+` WHERE `+where+`) x`, arg).Scan(&out)
	if isNoRows(err) {
		return nil, notFound("Cannot find a role")
	}
	return out, err
}

// pgCreateRole is postgres-meta's POST /roles: {name, password?,
// can_login?, inherit_role?, connection_limit?, valid_until?, member_of?}.
func (s *Service) pgCreateRole(w http.ResponseWriter, r *http.Request) error {
	var a roleAttrs
	if err := decodeBody(r, &a); err != nil {
		return err
	}
	if a.Name == nil || strings.TrimSpace(*a.Name) == "" {
		return badRequest("name is required")
	}
	name := *a.Name
	noteAudit(r.Context(), "role "+name, nil)
	a.Name = nil
	opts, err := a.options()
	if err != nil {
		return err
	}
	return s.answerTx(w, r.Context(), http.StatusCreated, func(tx pgx.Tx) ([]byte, error) {
		if why, err := roleReserved(r.Context(), tx, name); err != nil || why != "" {
			return nil, forbiddenOr(why, err)
		}
		if err := execOne(r.Context(), tx, "CREATE ROLE "+ident(name)+" "+opts); err != nil {
			return nil, err
		}
		if a.MemberOf != nil {
			if err := setMembership(r.Context(), tx, name, *a.MemberOf); err != nil {
				return nil, err
			}
		}
		return roleJSON(r.Context(), tx, "rolname = $1", name)
	})
}

// answerTx runs fn in a transaction and, once it committed, answers with
// the JSON fn returned.
func (s *Service) answerTx(w http.ResponseWriter, ctx context.Context, status int, fn func(tx pgx.Tx) ([]byte, error)) error {
	var out []byte
	err := pgx.BeginFunc(ctx, s.d.Admin, func(tx pgx.Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	if err != nil {
		return err
	}
	writeRaw(w, status, out)
	return nil
}

// forbiddenOr is err, or a 403 saying why when why is set.
func forbiddenOr(why string, err error) error {
	if err != nil {
		return err
	}
	return forbidden("%s", why)
}

// forbidden is a 403 with Studio's error body: a write Studio refuses.
func forbidden(format string, args ...any) error {
	return &httpError{http.StatusForbidden, errorBody{Error: fmt.Sprintf(format, args...)}}
}

// roleByID reads a role's name by id, refusing a reserved one.
func roleByID(r *http.Request, tx pgx.Tx) (int64, string, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, "", notFound("Cannot find a role with ID %s", r.PathValue("id"))
	}
	var name string
	err = tx.QueryRow(r.Context(), `SELECT rolname FROM pg_roles WHERE oid = $1`, id).Scan(&name)
	if isNoRows(err) {
		return 0, "", notFound("Cannot find a role with ID %d", id)
	} else if err != nil {
		return 0, "", err
	}
	noteAudit(r.Context(), "role "+name, nil)
	why, err := roleReserved(r.Context(), tx, name)
	if err != nil || why != "" {
		return 0, "", forbiddenOr(why, err)
	}
	return id, name, nil
}

// pgUpdateRole is postgres-meta's PATCH /roles/{id}: any of name,
// password, can_login, inherit_role, connection_limit, valid_until, and
// Basalt's member_of (the roles it is to be a member of, exactly).
func (s *Service) pgUpdateRole(w http.ResponseWriter, r *http.Request) error {
	var a roleAttrs
	if err := decodeBody(r, &a); err != nil {
		return err
	}
	noteAudit(r.Context(), "role "+r.PathValue("id"), nil)
	rename := a.Name
	a.Name = nil
	opts, err := a.options()
	if err != nil {
		return err
	}
	return s.answerTx(w, r.Context(), http.StatusOK, func(tx pgx.Tx) ([]byte, error) {
		id, name, err := roleByID(r, tx)
		if err != nil {
			return nil, err
		}
		if opts != "" {
			if err := execOne(r.Context(), tx, "ALTER ROLE "+ident(name)+" WITH "+opts); err != nil {
				return nil, err
			}
		}
		if a.MemberOf != nil {
			if err := setMembership(r.Context(), tx, name, *a.MemberOf); err != nil {
				return nil, err
			}
		}
		if rename != nil && *rename != name {
			if why, err := roleReserved(r.Context(), tx, *rename); err != nil || why != "" {
				return nil, forbiddenOr(why, err)
			}
			if err := execOne(r.Context(), tx, "ALTER ROLE "+ident(name)+" RENAME TO "+ident(*rename)); err != nil {
				return nil, err
			}
		}
		return roleJSON(r.Context(), tx, "oid = $1", id)
	})
}

// pgDropRole is postgres-meta's DELETE /roles/{id}, answered with the role
// as it was.
func (s *Service) pgDropRole(w http.ResponseWriter, r *http.Request) error {
	noteAudit(r.Context(), "role "+r.PathValue("id"), nil)
	return s.answerTx(w, r.Context(), http.StatusOK, func(tx pgx.Tx) ([]byte, error) {
		id, name, err := roleByID(r, tx)
		if err != nil {
			return nil, err
		}
		before, err := roleJSON(r.Context(), tx, "oid = $1", id)
		if err != nil {
			return nil, err
		}
		return before, execOne(r.Context(), tx, "DROP ROLE "+ident(name))
	})
}
