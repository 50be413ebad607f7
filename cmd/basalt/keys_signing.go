package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
)

const keysSigningUsage = `Usage:
  basalt keys signing list [--json]       the signing keys and their states
  basalt keys signing add [--alg ES256|RS256]
                                          a new key on standby: published in the JWKS, signing nothing yet
  basalt keys signing rotate [KID]        the standby key signs from now on; the key that signed is
                                          previously used, its tokens verify until they expire
  basalt keys signing revoke KID          a standby or previously used key: its tokens no longer verify

They change keys.json in the data dir (--data-dir DIR), or the keys file --file FILE (the one
BASALT_KEYS_FILE names; for JWT_KEYS, copy its "jwt_keys" there). A running server reads its keys
when it starts: restart it (node by node, after adding a standby key and again after rotating).
`

// keysSigning runs `basalt keys signing …` on a keys file.
func keysSigning(args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("keys signing")
	asJSON := fs.Bool("json", false, "print JSON")
	alg := fs.String("alg", "ES256", "algorithm of a new key: ES256 or RS256")
	file := fs.String("file", "", "keys file (default: keys.json in the data dir)")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(interspersed(args)); err != nil {
		return usageError{err.Error()}
	}
	sub, rest := fs.Arg(0), fs.Args()
	if len(rest) > 0 {
		rest = rest[1:]
	}
	wantArgs := map[string][2]int{"list": {0, 0}, "add": {0, 0}, "rotate": {0, 1}, "revoke": {1, 1}}
	n, known := wantArgs[sub]
	switch {
	case sub == "help":
		fmt.Fprint(stdout, keysSigningUsage)
		return nil
	case !known:
		fmt.Fprint(stdout, keysSigningUsage)
		return usageError{fmt.Sprintf("unknown keys signing command %q", sub)}
	case len(rest) < n[0] || len(rest) > n[1]:
		fmt.Fprint(stdout, keysSigningUsage)
		return usageError{"keys signing " + sub + ": wrong number of arguments"}
	}
	cfg, err := config.Load(config.Dev, envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir}))
	if err != nil {
		return err
	}
	path := *file
	var k *jwt.Keys
	if path == "" {
		path = filepath.Join(cfg.DataDir, "keys.json")
		k, _, err = jwt.LoadOrCreate(path, time.Now())
	} else {
		k, err = jwt.Load(path)
	}
	if err != nil {
		return err
	}
	var changed *jwt.SetKey
	switch sub {
	case "list":
		return printSigningKeys(stdout, k.SigningKeys(), *asJSON)
	case "add":
		changed, err = k.AddStandby(*alg)
	case "rotate":
		kid := ""
		if len(rest) == 1 {
			kid = rest[0]
		}
		changed, err = k.Rotate(kid)
	case "revoke":
		changed, err = k.Revoke(rest[0])
	}
	if err != nil {
		return err
	}
	if err := k.Save(path); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(signingKeyJSON(changed))
	}
	fmt.Fprintf(stdout, "%s key %s is %s\n", changed.Alg, changed.KID, changed.Status)
	fmt.Fprintf(stderr, "%s is written; a running server uses it once restarted\n", path)
	return nil
}

type signingKeyOut struct {
	KID    string     `json:"kid"`
	Alg    string     `json:"alg"`
	Status jwt.Status `json:"status"`
}

func signingKeyJSON(s *jwt.SetKey) signingKeyOut { return signingKeyOut{s.KID, s.Alg, s.Status} }

func printSigningKeys(w io.Writer, keys []*jwt.SetKey, asJSON bool) error {
	if asJSON {
		out := []signingKeyOut{}
		for _, s := range keys {
			out = append(out, signingKeyJSON(s))
		}
		return json.NewEncoder(w).Encode(out)
	}
	if len(keys) == 0 {
		_, err := fmt.Fprintln(w, "no asymmetric signing keys: access tokens are signed with the JWT secret (HS256)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KID\tALG\tSTATUS")
	for _, s := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.KID, s.Alg, s.Status)
	}
	return tw.Flush()
}
