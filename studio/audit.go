package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// auditBodyMax is the most of a JSON request body an audit row keeps.
const auditBodyMax = 64 << 10

// auditNote lets a handler add to its call's audit row what only it knows
// (the object a DDL statement touched, say).
type auditNote struct {
	target string
	detail map[string]any
}

type auditNoteKey struct{}

// noteAudit records target and detail for the call's audit row.
func noteAudit(ctx context.Context, target string, detail map[string]any) {
	if n, ok := ctx.Value(auditNoteKey{}).(*auditNote); ok {
		if target != "" {
			n.target = target
		}
		for k, v := range detail {
			if n.detail == nil {
				n.detail = map[string]any{}
			}
			n.detail[k] = v
		}
	}
}

// beginAudit writes the audit row of a write before the write runs, so no
// write happens that the log does not show: who, what (the action, the
// method and path, the JSON body up to 64 KiB), to what, when. It returns
// the row's id, and the request with its body intact.
func (s *Service) beginAudit(r *http.Request, a actor, action string) (int64, *http.Request, error) {
	detail := map[string]any{"method": r.Method, "path": r.URL.Path}
	if q := r.URL.RawQuery; q != "" {
		detail["query"] = q
	}
	if r.Body != nil && r.Body != http.NoBody {
		head, err := io.ReadAll(io.LimitReader(r.Body, auditBodyMax+1))
		if err != nil {
			return 0, r, err
		}
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), rest), rest}
		switch {
		case len(head) > auditBodyMax:
			detail["body_bytes"] = "over 64 KiB"
		case strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Valid(head):
			if json.Valid(head) {
				detail["body"] = redact(head)
			} else {
				detail["body_text"] = string(head)
			}
		default:
			detail["body_bytes"] = len(head)
			detail["content_type"] = r.Header.Get("Content-Type")
		}
	}
	var opID *string
	if a.Operator.ID != "" {
		opID = &a.Operator.ID
	}
	var id int64
	err := s.d.Admin.QueryRow(r.Context(), `INSERT INTO basalt.studio_audit (operator_id, actor, action, target, detail, ip, request_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		opID, a.name(), action, r.URL.Path, detail, httpx.ClientIP(r), telemetry.RequestID(r.Context())).Scan(&id)
	return id, r, err
}

// endAudit adds the outcome to the row beginAudit wrote.
func (s *Service) endAudit(ctx context.Context, id int64, status int, note *auditNote) {
	// The write is done: its outcome is recorded even if the client left.
	ctx = context.WithoutCancel(ctx)
	var target *string
	if note.target != "" {
		target = &note.target
	}
	extra := note.detail
	if extra == nil {
		extra = map[string]any{}
	}
	if _, err := s.d.Admin.Exec(ctx, `UPDATE basalt.studio_audit SET status = $2, target = coalesce($3, target), detail = detail || $4 WHERE id = $1`,
		id, status, target, extra); err != nil {
		s.log.ErrorContext(ctx, "studio audit outcome", "audit_id", id, "err", err)
	}
}

// audit writes one finished action (sign-in and sign-out, whose actor is
// only known once they ran).
func (s *Service) audit(ctx context.Context, db pg.DB, op Operator, action, target string, status int, r *http.Request) error {
	var opID *string
	if op.ID != "" {
		opID = &op.ID
	}
	_, err := db.Exec(ctx, `INSERT INTO basalt.studio_audit (operator_id, actor, action, target, detail, ip, request_id, status)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		opID, op.Email, action, target, map[string]any{"method": r.Method, "path": r.URL.Path},
		httpx.ClientIP(r), telemetry.RequestID(ctx), status)
	return err
}

// secretField names JSON fields whose values an audit row must not keep
// (a user created with a password through GoTrue's admin API, say, or a
// webhook's Authorization header).
var secretField = lazy.NewRegexp(`(?i)password|secret|token|api[_-]?key|private|authori[sz]ation|cookie`)

// redact replaces the values of secret-looking fields, at any depth.
func redact(body []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return body
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if secretField.MatchString(k) {
					t[k] = "[redacted]"
				} else {
					t[k] = walk(val)
				}
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		}
		return x
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return body
	}
	return out
}
