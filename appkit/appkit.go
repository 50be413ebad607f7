// Package appkit is the seam between Basalt and an app built on it. Basalt
// knows nothing about the app's tables or rules; an app hands the binary an
// App value, and cmd/basalt wires it in one line. SQL migrations and dev
// seeds need no Go: they are files under BASALT_SQL_DIR (app/ and seed/).
package appkit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// App is what an app plugs into Basalt. Every field may be nil.
type App struct {
	// Name identifies the app in logs.
	Name string
	// Functions builds the app's edge functions, served under
	// /functions/v1/{name}.
	Functions func(env Env) ([]functions.Function, error)
	// CheckSettings reports every bad app setting in getenv, so that
	// `basalt serve` can refuse to start with one message naming them all
	// before it connects anywhere.
	CheckSettings func(getenv func(string) string) error
	// DevData runs in `basalt dev` after the migrations and seeds, with the
	// API up in process: the place to generate demo files that seed rows
	// point at. It must be idempotent: dev runs it on every start.
	DevData func(ctx context.Context, dev Dev) error
	// Previews names the SQL function that writes link previews (Open
	// Graph tags) of the app's pages for crawlers; nil for none.
	Previews *Previews
}

// Previews are an app's link previews: Function (schema.name) is called as
// a visitor with the path of a page under one of Paths and answers a JSON
// object with title, description, image (a URL or a path on the API) and
// type, or NULL for a page without one.
type Previews struct {
	Function string
	Paths    []string
}

// Env is what an app's functions may use.
type Env struct {
	Getenv func(string) string
	// User is the pool whose role (authenticator) acts as callers, through
	// pg.AsCaller and friends.
	User pg.DB
	Log  *slog.Logger
	// PublicURL is the API URL clients use; FunctionsURL is its
	// /functions/v1.
	PublicURL string
	// Dev is true under `basalt dev`.
	Dev bool
}

// FunctionsURL is where the app's functions are reachable from outside.
func (e Env) FunctionsURL() string { return e.PublicURL + "/functions/v1" }

// Dev is what DevData may use.
type Dev struct {
	// Admin is the owner pool: dev data may read any table.
	Admin pg.DB
	// API is the whole gateway, in process.
	API  http.Handler
	Keys *jwt.Keys
	Log  *slog.Logger
}

// Upload stores body at "bucket/name" through the storage API as
// service_role, replacing what is there, so that dev files take the one way
// every upload takes (bytes and metadata alike).
func (d Dev) Upload(ctx context.Context, path, contentType string, body []byte) error {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/storage/v1/object/"+path, bytes.NewReader(body))
	req.Header.Set("apikey", d.Keys.ServiceRoleKey)
	req.Header.Set("Authorization", "Bearer "+d.Keys.ServiceRoleKey)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("x-upsert", "true")
	req.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	d.API.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		msg, _ := io.ReadAll(rec.Body)
		return fmt.Errorf("upload %s: %d %s", path, rec.Code, msg)
	}
	return nil
}
