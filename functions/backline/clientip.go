package backline

import (
	"net/http"

	"github.com/basaltdev/basalt/internal/httpx"
)

// clientIP answers {ip} with the caller's address as the gateway saw it, so
// the app needs no third-party IP lookup. Any method works: functions-js
// sends POST by default.
func (b *Backline) clientIP(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"ip": httpx.ClientIP(r)})
	return nil
}
