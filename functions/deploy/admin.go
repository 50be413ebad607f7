package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

// Admin is the API the `basalt functions` and `basalt secrets` commands
// call, under /functions/v1/_admin (a path no function can have). Only the
// service_role may use it: the secret key or a service_role JWT; the
// gateway already refuses a secret key sent from a browser.
//
//	GET    /functions                  every version of every function
//	PUT    /functions/{name}           deploy a bundle (application/gzip), ?verify_jwt=false
//	POST   /functions/{name}/rollback  {"version": N} or {} for the previous one
//	DELETE /functions/{name}           remove it and its versions
//	GET    /functions/{name}/logs      ?limit=100&request_id=…
//	GET    /secrets                    names and digests
//	POST   /secrets                    [{"name": …, "value": …}]
//	DELETE /secrets                    ["NAME", …]
type Admin struct {
	store    *Store
	source   *Source
	reserved func(name string) bool
	mux      *http.ServeMux
}

// NewAdmin serves store's API. reserved reports names taken by Go
// functions, which a deploy may not shadow. After a write, source is
// refreshed at once so this node serves the change on the next request.
func NewAdmin(store *Store, source *Source, reserved func(string) bool) *Admin {
	a := &Admin{store: store, source: source, reserved: reserved, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET /functions", a.list)
	a.mux.HandleFunc("PUT /functions/{name}", a.deploy)
	a.mux.HandleFunc("POST /functions/{name}/rollback", a.rollback)
	a.mux.HandleFunc("DELETE /functions/{name}", a.delete)
	a.mux.HandleFunc("GET /functions/{name}/logs", a.logs)
	a.mux.HandleFunc("GET /secrets", a.listSecrets)
	a.mux.HandleFunc("POST /secrets", a.setSecrets)
	a.mux.HandleFunc("DELETE /secrets", a.unsetSecrets)
	return a
}

func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := jwt.FromContext(r.Context())
	if c.Err != nil || c.Claims == nil || c.Claims.Role != "service_role" {
		fail(w, http.StatusUnauthorized, "unauthorized", "the functions admin API needs the secret (service_role) key")
		return
	}
	a.mux.ServeHTTP(w, r)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	httpx.WriteJSON(w, status, map[string]string{"code": code, "message": msg})
}

func (a *Admin) refresh(ctx context.Context) {
	if a.source != nil {
		_ = a.source.Refresh(ctx) // other nodes follow the NOTIFY; this one now
	}
}

func (a *Admin) list(w http.ResponseWriter, r *http.Request) {
	vs, err := a.store.List(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	if vs == nil {
		vs = []Version{}
	}
	httpx.WriteJSON(w, http.StatusOK, vs)
}

func (a *Admin) deploy(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !deno.NameRE.MatchString(name) || len(name) > 128 {
		fail(w, http.StatusBadRequest, "invalid_name", fmt.Sprintf("%q is not a valid function name", name))
		return
	}
	if a.reserved != nil && a.reserved(name) {
		fail(w, http.StatusConflict, "name_taken", fmt.Sprintf("%q is a Go function of this server: a TypeScript function may not have its name", name))
		return
	}
	verify := true
	if v := r.URL.Query().Get("verify_jwt"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, http.StatusBadRequest, "invalid_parameter", "verify_jwt must be true or false")
			return
		}
		verify = b
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBundleBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		fail(w, http.StatusRequestEntityTooLarge, "bundle_too_large", fmt.Sprintf("a bundle may be at most %d bytes", MaxBundleBytes))
		return
	}
	if err != nil {
		return // the client left
	}
	// The bundle must unpack and name an entrypoint before it is kept.
	tmp, err := os.MkdirTemp("", "basalt-bundle-")
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	defer os.RemoveAll(tmp)
	if _, err := Unpack(body, tmp, name); err != nil {
		fail(w, http.StatusBadRequest, "invalid_bundle", err.Error())
		return
	}
	by := ""
	if c := jwt.FromContext(r.Context()); c.Claims != nil {
		by = c.Claims.Subject
	}
	v, err := a.store.Deploy(r.Context(), name, body, verify, by)
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	a.refresh(r.Context())
	httpx.WriteJSON(w, http.StatusCreated, v)
}

func (a *Admin) rollback(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Version int `json:"version"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<10)).Decode(&body); err != nil && err != io.EOF {
			fail(w, http.StatusBadRequest, "invalid_body", "the body must be {\"version\": N} or empty")
			return
		}
	}
	v, err := a.store.Rollback(r.Context(), r.PathValue("name"), body.Version)
	if errors.Is(err, ErrNotFound) {
		fail(w, http.StatusNotFound, "not_found", "no such function or version to roll back to")
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	a.refresh(r.Context())
	httpx.WriteJSON(w, http.StatusOK, v)
}

func (a *Admin) delete(w http.ResponseWriter, r *http.Request) {
	err := a.store.Delete(r.Context(), r.PathValue("name"))
	if errors.Is(err, ErrNotFound) {
		fail(w, http.StatusNotFound, "not_found", "no such function")
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	a.refresh(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

func (a *Admin) logs(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			fail(w, http.StatusBadRequest, "invalid_parameter", "limit must be between 1 and 1000")
			return
		}
		limit = n
	}
	es, err := a.store.Logs(r.Context(), r.PathValue("name"), r.URL.Query().Get("request_id"), limit)
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	if es == nil {
		es = []LogEntry{}
	}
	httpx.WriteJSON(w, http.StatusOK, es)
}

func (a *Admin) listSecrets(w http.ResponseWriter, r *http.Request) {
	ss, err := a.store.ListSecrets(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	if ss == nil {
		ss = []SecretInfo{}
	}
	httpx.WriteJSON(w, http.StatusOK, ss)
}

func (a *Admin) setSecrets(w http.ResponseWriter, r *http.Request) {
	var body []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil || len(body) == 0 {
		fail(w, http.StatusBadRequest, "invalid_body", `the body must be [{"name": "...", "value": "..."}, ...] (at most 1 MB)`)
		return
	}
	m := make(map[string]string, len(body))
	for _, s := range body {
		m[s.Name] = s.Value
	}
	err := a.store.SetSecrets(r.Context(), m)
	if errors.Is(err, ErrBadSecret) {
		fail(w, http.StatusBadRequest, "invalid_secret", err.Error())
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	a.refresh(r.Context())
	w.WriteHeader(http.StatusCreated)
}

func (a *Admin) unsetSecrets(w http.ResponseWriter, r *http.Request) {
	var names []string
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&names); err != nil || len(names) == 0 {
		fail(w, http.StatusBadRequest, "invalid_body", `the body must be ["NAME", ...]`)
		return
	}
	if err := a.store.UnsetSecrets(r.Context(), names); err != nil {
		fail(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	a.refresh(r.Context())
	w.WriteHeader(http.StatusNoContent)
}

// Timeout for the admin calls of the command line.
const clientTimeout = 2 * time.Minute
