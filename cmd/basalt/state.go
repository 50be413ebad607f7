package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/basaltdev/basalt/internal/proc"
)

// state is what a running `basalt dev` writes to DATA_DIR/state.json, so
// `basalt status` in another process can report it. The JSON names are the
// ones `supabase status -o json` scripts expect, plus the new-format keys.
type state struct {
	APIURL         string    `json:"api_url"`
	DBURL          string    `json:"db_url"`
	AppURL         string    `json:"app_url"`
	StudioURL      string    `json:"studio_url,omitempty"`
	AnonKey        string    `json:"anon_key"`
	ServiceRoleKey string    `json:"service_role_key"`
	JWTSecret      string    `json:"jwt_secret"`
	JWKSURL        string    `json:"jwks_url"`
	PublishableKey string    `json:"publishable_key,omitempty"`
	SecretKey      string    `json:"secret_key,omitempty"`
	PID            int       `json:"pid"`
	SocketDir      string    `json:"socket_dir"`
	DBPort         int       `json:"db_port"`
	StartedAt      time.Time `json:"started_at"`
}

func statePath(dataDir string) string { return filepath.Join(dataDir, "state.json") }

// writeState saves st atomically (0600: it carries secrets).
func writeState(dataDir string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return os.Rename(tmp, statePath(dataDir))
}

// errNotRunning says no live `basalt dev` owns the data dir.
var errNotRunning = errors.New("basalt dev is not running")

// readState loads the state of a live `basalt dev`; a state file left by a
// process that is gone counts as not running.
func readState(dataDir string) (state, error) {
	var st state
	b, err := os.ReadFile(statePath(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("%w in %s (start it with \"basalt dev\")", errNotRunning, dataDir)
	} else if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("parse %s: %w", statePath(dataDir), err)
	}
	// A zombie (killed, not yet reaped) is gone: it holds nothing.
	if !proc.Alive(st.PID) {
		return st, fmt.Errorf("%w in %s (process %d is gone)", errNotRunning, dataDir, st.PID)
	}
	return st, nil
}
