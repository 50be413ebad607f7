package studio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// ident quotes a name for SQL.
func ident(parts ...string) string { return pgx.Identifier(parts).Sanitize() }

// execOne runs one statement through the extended protocol, which refuses
// a second statement: an expression given for a policy cannot smuggle
// another command after it.
func execOne(ctx context.Context, tx pgx.Tx, sql string) error {
	_, err := tx.Conn().PgConn().ExecParams(ctx, sql, nil, nil, nil, nil).Close()
	return err
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// decodeBody reads a JSON body into v, or answers 400 in postgres-meta's
// shape.
func decodeBody(r *http.Request, v any) error {
	if err := httpx.DecodeJSON(r, 64<<20, v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return badRequest("body must be a JSON object: %v", errors.Unwrap(err))
	}
	return nil
}

// policyRef is a policy's name and table, read by id.
type policyRef struct{ Name, Schema, Table string }

func (s *Service) policyByID(ctx context.Context, db pgx.Tx, idText string) (int64, policyRef, error) {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return 0, policyRef{}, notFound("Cannot find a policy with ID %s", idText)
	}
	var p policyRef
	err = db.QueryRow(ctx, `SELECT p.polname, n.nspname, c.relname FROM pg_policy p
		JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE p.oid = $1`, id).
		Scan(&p.Name, &p.Schema, &p.Table)
	if isNoRows(err) {
		return 0, p, notFound("Cannot find a policy with ID %d", id)
	}
	return id, p, err
}

// writePolicy answers with the policy of id, as GET /pg/policies/{id}.
func (s *Service) writePolicy(w http.ResponseWriter, ctx context.Context, where string, args ...any) error {
	var out json.RawMessage
	if err := s.d.Admin.QueryRow(ctx, `SELECT to_json(b) FROM (`+policiesSQL+`) b WHERE `+where, args...).Scan(&out); err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// pgCreatePolicy creates a policy from postgres-meta's body: name, table,
// schema (public), definition (USING), check (WITH CHECK), action
// (PERMISSIVE), command (ALL), roles (public).
func (s *Service) pgCreatePolicy(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name       string   `json:"name"`
		Table      string   `json:"table"`
		Schema     string   `json:"schema"`
		Definition *string  `json:"definition"`
		Check      *string  `json:"check"`
		Action     string   `json:"action"`
		Command    string   `json:"command"`
		Roles      []string `json:"roles"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Schema == "" {
		b.Schema = "public"
	}
	if b.Action == "" {
		b.Action = "PERMISSIVE"
	}
	if b.Command == "" {
		b.Command = "ALL"
	}
	if len(b.Roles) == 0 {
		b.Roles = []string{"public"}
	}
	if b.Name == "" || b.Table == "" {
		return badRequest("name and table are required")
	}
	action, command := strings.ToUpper(b.Action), strings.ToUpper(b.Command)
	if action != "PERMISSIVE" && action != "RESTRICTIVE" {
		return badRequest("action must be PERMISSIVE or RESTRICTIVE")
	}
	switch command {
	case "ALL", "SELECT", "INSERT", "UPDATE", "DELETE":
	default:
		return badRequest("command must be ALL, SELECT, INSERT, UPDATE or DELETE")
	}
	sql := fmt.Sprintf("CREATE POLICY %s ON %s AS %s FOR %s TO %s", ident(b.Name), ident(b.Schema, b.Table), action, command, roleList(b.Roles))
	if b.Definition != nil {
		sql += " USING (" + *b.Definition + ")"
	}
	if b.Check != nil {
		sql += " WITH CHECK (" + *b.Check + ")"
	}
	noteAudit(r.Context(), fmt.Sprintf("policy %s on %s.%s", b.Name, b.Schema, b.Table), map[string]any{"sql": sql})
	if err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error { return execOne(r.Context(), tx, sql) }); err != nil {
		return err
	}
	return s.writePolicy(w, r.Context(), "b.schema = $1 AND b.table = $2 AND b.name = $3", b.Schema, b.Table, b.Name)
}

// roleList renders roles for TO: public is a keyword, the rest are names.
func roleList(roles []string) string {
	out := make([]string, len(roles))
	for i, r := range roles {
		if strings.EqualFold(r, "public") {
			out[i] = "public"
		} else {
			out[i] = ident(r)
		}
	}
	return strings.Join(out, ", ")
}

// pgUpdatePolicy changes a policy's expressions, roles or name, in one
// transaction (the rename last).
func (s *Service) pgUpdatePolicy(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name       *string  `json:"name"`
		Definition *string  `json:"definition"`
		Check      *string  `json:"check"`
		Roles      []string `json:"roles"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	var id int64
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		var p policyRef
		var err error
		if id, p, err = s.policyByID(r.Context(), tx, r.PathValue("id")); err != nil {
			return err
		}
		noteAudit(r.Context(), fmt.Sprintf("policy %s on %s.%s", p.Name, p.Schema, p.Table), nil)
		alter := fmt.Sprintf("ALTER POLICY %s ON %s", ident(p.Name), ident(p.Schema, p.Table))
		var stmts []string
		if b.Definition != nil {
			stmts = append(stmts, alter+" USING ("+*b.Definition+")")
		}
		if b.Check != nil {
			stmts = append(stmts, alter+" WITH CHECK ("+*b.Check+")")
		}
		if b.Roles != nil {
			stmts = append(stmts, alter+" TO "+roleList(b.Roles))
		}
		if b.Name != nil && *b.Name != p.Name {
			stmts = append(stmts, alter+" RENAME TO "+ident(*b.Name))
		}
		for _, st := range stmts {
			if err := execOne(r.Context(), tx, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.writePolicy(w, r.Context(), "b.id = $1", id)
}

// pgDropPolicy drops a policy and answers with it as it was.
func (s *Service) pgDropPolicy(w http.ResponseWriter, r *http.Request) error {
	var before json.RawMessage
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		id, p, err := s.policyByID(r.Context(), tx, r.PathValue("id"))
		if err != nil {
			return err
		}
		noteAudit(r.Context(), fmt.Sprintf("policy %s on %s.%s", p.Name, p.Schema, p.Table), nil)
		if err := tx.QueryRow(r.Context(), `SELECT to_json(b) FROM (`+policiesSQL+`) b WHERE b.id = $1`, id).Scan(&before); err != nil {
			return err
		}
		return execOne(r.Context(), tx, fmt.Sprintf("DROP POLICY %s ON %s", ident(p.Name), ident(p.Schema, p.Table)))
	})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, before)
	return nil
}

// pgUpdateTable changes a table's row-level security, name or comment
// (postgres-meta's rls_enabled, rls_forced, name, comment).
func (s *Service) pgUpdateTable(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name       *string `json:"name"`
		RLSEnabled *bool   `json:"rls_enabled"`
		RLSForced  *bool   `json:"rls_forced"`
		Comment    *string `json:"comment"`
		Schema     *string `json:"schema"`
		Replica    *string `json:"replica_identity"`
		PrimaryKey any     `json:"primary_keys"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Schema != nil || b.Replica != nil || b.PrimaryKey != nil {
		return badRequest("schema, replica_identity and primary_keys cannot be changed here: use the SQL editor")
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return notFound("Cannot find a table with ID %s", r.PathValue("id"))
	}
	err = pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		var schema, name string
		err := tx.QueryRow(r.Context(), `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE c.oid = $1 AND c.relkind IN ('r', 'p')`, id).Scan(&schema, &name)
		if isNoRows(err) {
			return notFound("Cannot find a table with ID %d", id)
		} else if err != nil {
			return err
		}
		noteAudit(r.Context(), schema+"."+name, nil)
		alter := "ALTER TABLE " + ident(schema, name)
		var stmts []string
		if b.RLSEnabled != nil {
			stmts = append(stmts, alter+map[bool]string{true: " ENABLE", false: " DISABLE"}[*b.RLSEnabled]+" ROW LEVEL SECURITY")
		}
		if b.RLSForced != nil {
			stmts = append(stmts, alter+map[bool]string{true: " FORCE", false: " NO FORCE"}[*b.RLSForced]+" ROW LEVEL SECURITY")
		}
		if b.Comment != nil {
			var lit string
			if err := tx.QueryRow(r.Context(), `SELECT quote_literal($1::text)`, *b.Comment).Scan(&lit); err != nil {
				return err
			}
			stmts = append(stmts, "COMMENT ON TABLE "+ident(schema, name)+" IS "+lit)
		}
		if b.Name != nil && *b.Name != name {
			stmts = append(stmts, alter+" RENAME TO "+ident(*b.Name))
		}
		for _, st := range stmts {
			if err := execOne(r.Context(), tx, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.oneJSON(w, r, tablesWithColumns, "a table")
}
