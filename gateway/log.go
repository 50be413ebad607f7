package gateway

import (
	"log/slog"
	"net/http"
)

// Short aliases keep the access log call readable.
var (
	slogString = slog.String
	slogInt    = slog.Int
	slogInt64  = slog.Int64
	slogFloat  = slog.Float64
)

// levelFor logs server errors as errors and everything else as info.
func levelFor(status int) slog.Level {
	if status >= http.StatusInternalServerError {
		return slog.LevelError
	}
	return slog.LevelInfo
}
