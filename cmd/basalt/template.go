package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// clusterTemplate makes a fresh dev cluster a copy of one made before:
// initdb and the migrations cost seconds of CPU, a copy of their result a
// fraction of one. The first fresh start on a machine builds the template
// (its own cluster, initialised, migrated and stopped cleanly) under the
// user's cache folder; every later one copies it. A template is named after
// everything that shapes it (the server binaries, the cluster's settings
// and credentials, every migration file), so a change to any of them makes
// a new one and never reuses a stale one.
type clusterTemplate struct {
	root    string // folder of templates; "" leaves clusters to initdb
	sources []migrate.Source
	log     *slog.Logger
}

// templateFormat changes when what a template holds changes.
const templateFormat = "1"

// devTemplate is `basalt dev`'s template: in $XDG_CACHE_HOME/basalt/clusters
// (~/.cache/basalt/clusters), with the migrations dev applies.
func devTemplate(getenv func(string) string, sqlDir string, publicGrants bool, log *slog.Logger) clusterTemplate {
	root := getenv("XDG_CACHE_HOME")
	if root == "" && getenv("HOME") != "" {
		root = filepath.Join(getenv("HOME"), ".cache")
	}
	if root != "" {
		root = filepath.Join(root, "basalt", "clusters")
	}
	return clusterTemplate{root: root, sources: migrationSources(sqlDir, publicGrants), log: log}
}

// fill gives c, when its data directory holds no cluster yet, a copy of the
// template (built first if there is none). Any failure leaves c as it was,
// for initdb to fill.
func (t clusterTemplate) fill(ctx context.Context, c *pgcluster.Cluster) error {
	if t.root == "" || c.Initialized() {
		return nil
	}
	key, err := t.key(c)
	if err != nil {
		return err
	}
	dir := filepath.Join(t.root, key)
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		if err := c.CopyFrom(dir); err != nil {
			t.log.Warn("template cluster not copied; initialising a new one", "template", dir, "err", err)
			return nil
		}
		t.log.Info("postgres cluster copied from the template", "template", dir)
		// Its time says when it was last used, for prune.
		now := time.Now()
		_ = os.Chtimes(dir, now, now)
		return nil
	}
	return t.build(ctx, c, dir)
}

// build initialises c, applies the migrations, stops it cleanly and keeps a
// copy at dir. The copy goes to a folder of its own first and is renamed
// into place, so another basalt building the same template at the same
// time, or one killed half-way, leaves no partial template behind.
func (t clusterTemplate) build(ctx context.Context, c *pgcluster.Cluster, dir string) error {
	t.log.Info("building the postgres template cluster (first start on this machine)", "template", dir)
	if err := c.Init(ctx); err != nil {
		return fmt.Errorf("initialise PostgreSQL cluster in %s: %w", c.DataDir, err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	err := t.migrate(ctx, c)
	if serr := c.Stop(ctx, "fast"); serr != nil {
		return errors.Join(err, fmt.Errorf("stop postgres: %w", serr))
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(t.root, 0o755); err != nil {
		t.log.Warn("no template cluster kept", "err", err)
		return nil
	}
	tmp, err := os.MkdirTemp(t.root, ".build-")
	if err != nil {
		t.log.Warn("no template cluster kept", "err", err)
		return nil
	}
	defer os.RemoveAll(tmp)
	if err := c.CopyTo(filepath.Join(tmp, "pg")); err != nil {
		t.log.Warn("no template cluster kept", "err", err)
		return nil
	}
	if err := os.Rename(filepath.Join(tmp, "pg"), dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "PG_VERSION")); serr != nil {
			t.log.Warn("no template cluster kept", "err", err)
		}
	}
	t.prune(keptTemplates)
	return nil
}

// keptTemplates is how many templates the cache keeps: every migration
// change makes a new one (45 MB), and a few checkouts of different
// branches may share the cache.
const keptTemplates = 4

// prune removes all but the keep templates used last (and builds left by
// a killed start an hour or more ago).
func (t clusterTemplate) prune(keep int) {
	entries, err := os.ReadDir(t.root)
	if err != nil {
		return
	}
	type tmpl struct {
		path string
		made time.Time
	}
	var found []tmpl
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		p := filepath.Join(t.root, e.Name())
		if strings.HasPrefix(e.Name(), ".build-") {
			if time.Since(info.ModTime()) > time.Hour {
				_ = os.RemoveAll(p)
			}
			continue
		}
		found = append(found, tmpl{p, info.ModTime()})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].made.After(found[j].made) })
	for _, old := range found[min(keep, len(found)):] {
		if err := os.RemoveAll(old.path); err == nil {
			t.log.Info("removed an old template cluster", "template", old.path)
		}
	}
}

func (t clusterTemplate) migrate(ctx context.Context, c *pgcluster.Cluster) error {
	admin, err := pg.Connect(ctx, c.SocketURL(embeddedUser, embeddedDB), nil)
	if err != nil {
		return err
	}
	defer admin.Close()
	applied, err := migrate.Up(ctx, admin, func(msg string) { t.log.Info(msg) }, t.sources...)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	t.log.Info("template migrations applied", "applied", len(applied))
	return nil
}

// key names the template for c: a digest of the server binaries (folder,
// size and time of the postgres executable), c's credentials, settings and
// server user, and every file of every migration source.
func (t clusterTemplate) key(c *pgcluster.Cluster) (string, error) {
	if c.BinDir == "" {
		d, err := pgcluster.FindBinDir()
		if err != nil {
			return "", err
		}
		c.BinDir = d
	}
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	field(templateFormat)
	bin, err := os.Stat(filepath.Join(c.BinDir, "postgres"))
	if err != nil {
		return "", err
	}
	field(c.BinDir)
	field(strconv.FormatInt(bin.Size(), 10))
	field(strconv.FormatInt(bin.ModTime().UnixNano(), 10))
	field(c.Superuser)
	field(c.Password)
	field(c.CronDatabase)
	field(c.RunAs)
	field(strconv.Itoa(os.Geteuid()))
	keys := make([]string, 0, len(c.Settings))
	for k := range c.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		field(k)
		field(c.Settings[k])
	}
	for _, src := range t.sources {
		field(src.Name)
		field(src.After)
		err := fs.WalkDir(src.FS, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(src.FS, path)
			if err != nil {
				return err
			}
			field(path)
			field(string(b))
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("template key: %s migrations: %w", src.Name, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}
