package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

// deps is everything a service constructor may need.
type deps struct {
	Mode   config.Mode
	Config config.Config
	Getenv func(string) string
	Admin  *pgxpool.Pool // DATABASE_URL role: owner of the schemas
	User   *pgxpool.Pool // role authenticator: requests on behalf of callers
	Keys   *jwt.Keys
	Log    *slog.Logger
}

// buildServices constructs the services the gateway mounts. This is the one
// place where services are wired: each follows the same pattern,
//
//	cfg, err := auth.ConfigFromEnv(d.Getenv)
//	svc, err := auth.New(cfg, d.Admin, d.User, d.Keys)
//	svcs.Auth = svc
//
// A service left nil answers 404 under its prefix. The returned cleanup
// closes what the services hold (websocket hubs, background workers).
func buildServices(ctx context.Context, d deps) (gateway.Services, func(), error) {
	var svcs gateway.Services
	cleanup := func() {}
	_ = ctx
	fn, err := buildFunctions(d)
	if err != nil {
		return svcs, cleanup, fmt.Errorf("functions: %w", err)
	}
	svcs.Functions = fn
	return svcs, cleanup, nil
}
