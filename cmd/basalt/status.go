package main

import (
	"encoding/json"
	"fmt"
	"io"

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
	printBanner(stdout, st)
	return nil
}

// printBanner prints the facts a developer needs, like `supabase start`.
func printBanner(w io.Writer, st state) {
	fmt.Fprintln(w, "Basalt is running.")
	fmt.Fprintln(w)
	rows := [][2]string{
		{"API URL", st.APIURL},
		{"DB URL", st.DBURL},
		{"App URL", st.AppURL},
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
}
