package backline

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline/provider"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// maxBody bounds the JSON bodies the product functions accept.
const maxBody = 64 << 10

var uuidRE = lazy.NewRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// transferRequest is the body the player sends after a sponsored stream.
// The spec's body names no track; a client that names one (track_id) is
// paid only for a stream of that track.
type transferRequest struct {
	ArtistID  string      `json:"artist_id"`
	SponsorID string      `json:"sponsor_id"`
	TrackID   string      `json:"track_id"`
	Reference string      `json:"reference"`
	Amount    json.Number `json:"amount"`
}

// paymentFailure is transfer-payment's {success:false, error} answer.
func paymentFailure(status int, msg string, cause error) error {
	return functions.NewError(status, map[string]any{"success": false, "error": msg}, cause)
}

// transferPayment pays the artist for a sponsored stream the caller made.
// Every rule (eligibility in the spec's order, the configured amount, one
// payment per stream and reference, wallet locking, which balances the
// caller may read) lives in settle_sponsored_stream, run as the caller; this
// handler validates the shape of the body and relays the result unchanged.
// Business refusals are HTTP 200 with success:false, because functions-js
// hides the body of non-2xx answers from the app.
func (b *Backline) transferPayment(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return paymentFailure(http.StatusMethodNotAllowed, "Method not allowed", nil)
	}
	var req transferRequest
	if err := httpx.DecodeJSON(r, maxBody, &req); err != nil {
		return paymentFailure(http.StatusBadRequest, "Invalid JSON body", err)
	}
	switch {
	case !uuidRE.MatchString(req.ArtistID):
		return paymentFailure(http.StatusBadRequest, "artist_id must be a UUID", nil)
	case !uuidRE.MatchString(req.SponsorID):
		return paymentFailure(http.StatusBadRequest, "sponsor_id must be a UUID", nil)
	case req.TrackID != "" && !uuidRE.MatchString(req.TrackID):
		return paymentFailure(http.StatusBadRequest, "track_id must be a UUID", nil)
	case req.Reference == "" || len(req.Reference) > 200:
		return paymentFailure(http.StatusBadRequest, "reference is required", nil)
	}
	// The amount is only a claim (the spec's client sends 50): the SQL pays
	// the configured amount whether it is omitted, null or different. A
	// value that is not a number is still a malformed body.
	var amount *string
	if req.Amount != "" {
		a, err := provider.Decimal(req.Amount)
		if err != nil {
			return paymentFailure(http.StatusBadRequest, "amount must be a number", err)
		}
		amount = &a
	}
	var track *string
	if req.TrackID != "" {
		track = &req.TrackID
	}
	var result json.RawMessage
	err := b.asCaller(r, func(tx pgx.Tx) (err error) {
		result, err = callJSON(r.Context(), tx,
			`SELECT public.settle_sponsored_stream($1::uuid, $2::uuid, $3::text, $4::numeric, $5::uuid)`,
			req.ArtistID, req.SponsorID, req.Reference, amount, track)
		return err
	})
	switch {
	case err == nil:
	case errors.Is(err, errNoUser):
		return paymentFailure(http.StatusUnauthorized, "Authentication required", nil)
	case errors.Is(err, pg.ErrRoleNotAllowed):
		return paymentFailure(http.StatusUnauthorized, "Authentication required", err)
	default:
		if msg, ok := sqlMessage(err); ok {
			return paymentFailure(http.StatusOK, msg, nil)
		}
		if badInput(err) {
			return paymentFailure(http.StatusBadRequest, "Invalid payment request", err)
		}
		return err
	}
	writeJSONRaw(w, http.StatusOK, result)
	return nil
}

// writeJSONRaw sends a JSON document produced by SQL as is.
func writeJSONRaw(w http.ResponseWriter, status int, doc json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(doc)
}
