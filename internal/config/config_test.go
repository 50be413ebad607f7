package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.Dev, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		DataDir: ".basalt", SQLDir: "sql", AppDir: "frontend/dist", Host: "127.0.0.1",
		APIPort: 54321, AppPort: 3000, DBPort: 54322, ApplyMigrations: true,
		CORSOrigins: []string{"*"}, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ShutdownTimeout: 15 * time.Second, LogLevel: "info",
		ReadReplicaMaxLag: 5 * time.Second, ReadReplicaPoll: 100 * time.Millisecond,
		ThirdParty: config.ThirdParty{DefaultRole: "anon", JWKSRefresh: 10 * time.Minute},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestLoadOverrides(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.Serve, env(map[string]string{
		"DATABASE_URL": "postgres://owner:pw@db:5432/app", "JWT_SECRET": strings.Repeat("s", 40),
		"BASALT_API_PORT": "8080", "BASALT_CORS_ORIGINS": "https://a.example, https://b.example",
		"BASALT_HTTP_READ_TIMEOUT": "1m", "API_EXTERNAL_URL": "https://api.example/", "BASALT_MIGRATE": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "0.0.0.0" || c.APIPort != 8080 || c.ReadTimeout != time.Minute || c.PublicURL != "https://api.example" || c.ApplyMigrations {
		t.Errorf("config = %+v", c)
	}
	if diff := cmp.Diff([]string{"https://a.example", "https://b.example"}, c.CORSOrigins); diff != "" {
		t.Errorf("origins (-want +got):\n%s", diff)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := config.Load(config.Serve, env(map[string]string{
		"BASALT_API_PORT": "http", "BASALT_DB_PORT": "70000", "BASALT_HTTP_IDLE_TIMEOUT": "forever",
		"BASALT_MIGRATE": "maybe", "JWT_SIGNING_ALG": "PS256", "BASALT_CORS_ORIGINS": "example.com",
		"BASALT_LOG_LEVEL": "loud", "API_EXTERNAL_URL": "ftp://x",
		"BASALT_READ_REPLICA_URL": "replica:5432", "BASALT_READ_REPLICA_MAX_LAG": "50ms",
	}))
	if err == nil {
		t.Fatal("Load accepted a bad environment")
	}
	for _, want := range []string{"BASALT_API_PORT", "BASALT_DB_PORT", "BASALT_HTTP_IDLE_TIMEOUT", "BASALT_MIGRATE",
		"JWT_SIGNING_ALG", "BASALT_CORS_ORIGINS", "BASALT_LOG_LEVEL", "API_EXTERNAL_URL", "DATABASE_URL is required", "JWT_SECRET",
		"BASALT_READ_REPLICA_URL: want a postgres:// URL", "BASALT_READ_REPLICA_MAX_LAG (50ms) must be longer than BASALT_READ_REPLICA_POLL (100ms)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}

func TestUserDatabaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     config.Config
		want    string
		wantErr bool
	}{
		{"explicit URL wins", config.Config{AuthenticatorURL: "postgres://authenticator:x@h/db", DatabaseURL: "postgres://o:p@h/db"}, "postgres://authenticator:x@h/db", false},
		{"derived from DATABASE_URL", config.Config{DatabaseURL: "postgres://owner:pw@db:5432/app?sslmode=require", AuthenticatorPassword: "p@ss"},
			"postgres://authenticator:p%40ss@db:5432/app?sslmode=require", false},
		{"nothing to go on", config.Config{DatabaseURL: "postgres://o:p@h/db"}, "", true},
		{"not a URL", config.Config{DatabaseURL: "host=h dbname=d", AuthenticatorPassword: "p"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.cfg.UserDatabaseURL()
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("UserDatabaseURL() = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestReplicaUserURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  config.Config
		want string
	}{
		{"no replica", config.Config{AuthenticatorPassword: "p"}, ""},
		{"a user in the URL is kept", config.Config{ReadReplicaURL: "postgres://reader:r@replica/app", AuthenticatorPassword: "p"},
			"postgres://reader:r@replica/app"},
		{"authenticator with the configured password", config.Config{ReadReplicaURL: "postgres://replica:5433/app?sslmode=require", AuthenticatorPassword: "p@ss"},
			"postgres://authenticator:p%40ss@replica:5433/app?sslmode=require"},
		{"authenticator with the password of its URL", config.Config{ReadReplicaURL: "postgres://replica/app", AuthenticatorURL: "postgres://authenticator:x@primary/app"},
			"postgres://authenticator:x@replica/app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, err := tt.cfg.ReplicaUserURL(); err != nil || got != tt.want {
				t.Errorf("ReplicaUserURL() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// A prefixed Reader takes each setting from its first prefix that is set,
// names that variable in its problems, and shares them with its parent.
func TestReaderPrefixes(t *testing.T) {
	t.Parallel()
	parent := config.NewReader(env(map[string]string{
		"SVC_A": "own", "REF_A": "reference", "REF_B": "fallback", "REF_N": "x", "PLAIN": "many",
	}))
	r := parent.WithPrefixes("SVC_", "REF_")
	if a, b, c := r.String("A", ""), r.String("B", ""), r.String("C", "def"); a != "own" || b != "fallback" || c != "def" {
		t.Errorf("String = %q, %q, %q; want own, fallback, def", a, b, c)
	}
	if got, want := r.Name("B"), "REF_B"; got != want {
		t.Errorf("Name(B) = %q, want %q", got, want)
	}
	if got, want := r.Name("C"), "SVC_C"; got != want {
		t.Errorf("Name(C) = %q, want %q (the first prefix when none is set)", got, want)
	}
	r.Int("N", 1)
	parent.Int("PLAIN", 1)
	err := parent.Err()
	if err == nil || !strings.Contains(err.Error(), `REF_N="x": not an integer`) || !strings.Contains(err.Error(), `PLAIN="many"`) {
		t.Errorf("problems of both readers, by variable: %v", err)
	}
}

// The parsers Reader offers beyond the basic ones, with what each accepts
// and what each reports.
func TestReaderParsers(t *testing.T) {
	t.Parallel()
	r := config.NewReader(env(map[string]string{
		"SECS": "90", "DUR": "2m", "BADSECS": "-5", "T": "t", "F": "F", "ON": "on",
		"PAIRS": "+1555:123, 1666:456", "BADPAIRS": "1777:1,oops", "RANGE": "11", "KEY": "hunter2",
	}))
	if got := r.Seconds("SECS", 0); got != 90*time.Second {
		t.Errorf("Seconds(90) = %v", got)
	}
	if got := r.Seconds("DUR", 0); got != 2*time.Minute {
		t.Errorf("Seconds(2m) = %v", got)
	}
	if got := r.Seconds("BADSECS", time.Hour); got != time.Hour {
		t.Errorf("Seconds(-5) = %v, want the default", got)
	}
	if !r.Bool("T", false) || r.Bool("F", true) || !r.Bool("ON", false) {
		t.Error("Bool: t, F and on are booleans (strconv.ParseBool's forms and on/off)")
	}
	if diff := cmp.Diff(map[string]string{"+1555": "123", "1666": "456"}, r.Map("PAIRS", nil)); diff != "" {
		t.Errorf("Map (-want +got):\n%s", diff)
	}
	if got := r.Map("BADPAIRS", nil); got["1777"] != "1" {
		t.Errorf("Map keeps the good pairs of a bad list: %v", got)
	}
	if got := r.IntBetween("RANGE", 6, 6, 10); got != 6 {
		t.Errorf("IntBetween(11, 6..10) = %d, want the default", got)
	}
	r.ParseSecret("KEY", func(string) error { return errors.New("not a key") })
	err := r.Err()
	for _, want := range []string{`BADSECS="-5": not a number of seconds or a duration`, `BADPAIRS: "oops" is not key:value`,
		`RANGE=11: must be from 6 to 10`, `KEY: not a key`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %s: %v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "hunter2") {
		t.Errorf("ParseSecret repeated the value: %v", err)
	}
}
