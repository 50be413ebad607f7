package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// requiredHookClaims must survive the custom access token hook.
var requiredHookClaims = []string{"aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"}

// hookOutput is what a hook function returns: new claims, or an error to
// answer the request with.
type hookOutput struct {
	Claims map[string]any `json:"claims"`
	Error  *struct {
		HTTPCode int    `json:"http_code"`
		Message  string `json:"message"`
	} `json:"error"`
}

// runAccessTokenHook calls the configured Postgres function with
// {user_id, claims, authentication_method} and returns the claims it
// answers, as the reference's pg-functions hook does.
func (s *Service) runAccessTokenHook(ctx context.Context, db pg.DB, userID string, claims gojwt.MapClaims, method string) (gojwt.MapClaims, error) {
	schema, fn, _ := strings.Cut(s.cfg.CustomAccessTokenHook, ".")
	input, err := json.Marshal(map[string]any{"user_id": userID, "claims": claims, "authentication_method": method})
	if err != nil {
		return nil, fmt.Errorf("encode hook input: %w", err)
	}
	var raw []byte
	q := fmt.Sprintf(`SELECT %s($1::jsonb)::text`, pgx.Identifier{schema, fn}.Sanitize())
	// A failing function aborts the caller's transaction; the request fails.
	if err := db.QueryRow(ctx, q, string(input)).Scan(&raw); err != nil {
		return nil, &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error running hook URI: pg-functions://postgres/" + schema + "/" + fn, Cause: err}
	}
	var out hookOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
			Message: "Error unmarshaling Custom Access Token output.", Cause: err}
	}
	if out.Error != nil && (out.Error.Message != "" || out.Error.HTTPCode != 0) {
		status := out.Error.HTTPCode
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return nil, &apiError{Status: status, Message: out.Error.Message}
	}
	for _, k := range requiredHookClaims {
		if _, ok := out.Claims[k]; !ok {
			return nil, &apiError{Status: http.StatusInternalServerError,
				Message: "output claims do not conform to the expected schema: missing " + k}
		}
	}
	return gojwt.MapClaims(out.Claims), nil
}
