package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/basaltdev/basalt/internal/config"
)

// cmdStatus prints the URLs and keys of the `basalt dev` running on the data
// dir, as a banner or (--json) as one JSON object for scripts and tests.
func cmdStatus(args []string, stdout io.Writer, getenv func(string) string) error {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print JSON")
	output := fs.String("o", "", "output format (json)")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	st, err := readState(cfg.DataDir)
	if err != nil {
		return err
	}
	// -o json mirrors `supabase status -o json` for scripts ported over.
	if *asJSON || *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printBanner(stdout, st, seedNotes(cfg.SQLDir))
	return nil
}

// seedNotes returns sql/seed/banner.txt (the seed's demo logins), or "".
func seedNotes(sqlDir string) string {
	b, err := os.ReadFile(filepath.Join(sqlDir, "seed", "banner.txt"))
	if err != nil {
		return ""
	}
	return string(b)
}

// printBanner prints the facts a developer needs, like `supabase start`.
func printBanner(w io.Writer, st state, notes string) {
	fmt.Fprintln(w, "Basalt is running.")
	fmt.Fprintln(w)
	rows := [][2]string{
		{"API URL", st.APIURL},
		{"DB URL", st.DBURL},
		{"App URL", st.AppURL},
		{"Studio URL", st.StudioURL},
		{"JWKS URL", st.JWKSURL},
		{"JWT secret", st.JWTSecret},
		{"anon key", st.AnonKey},
		{"service_role key", st.ServiceRoleKey},
		{"Publishable key", st.PublishableKey},
		{"Secret key", st.SecretKey},
	}
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(w, "%18s: %s\n", r[0], r[1])
		}
	}
	fmt.Fprintln(w)
	// The seed's own notes (demo logins), when it ships any.
	if notes = strings.TrimSpace(notes); notes != "" {
		fmt.Fprintln(w, notes)
		fmt.Fprintln(w)
	}
}
