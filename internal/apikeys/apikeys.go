// Package apikeys keeps the project's new-format API keys (sb_publishable_…
// and sb_secret_…) in Postgres, as SHA-256 hashes. Several keys of each
// kind may be valid at once; each can be created, rotated and revoked on
// its own. Keys live in the database rather than in keys.json or the
// environment because every node must agree at once: a key revoked through
// one node is refused by all of them, announced with NOTIFY basalt_api_keys
// (and found by a poll should a notification be missed).
//
// A Store is one node's view: the gateway asks it which role a key stands
// for, with no round trip. The functions below it (Create, List, Revoke,
// Rotate, Import) change the keys; `basalt keys api` calls them.
package apikeys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// Kind is what a key is: publishable (the anon role) or secret
// (service_role).
type Kind string

// The two kinds, named as Supabase names them.
const (
	Publishable Kind = "publishable"
	Secret      Kind = "secret"
)

// Prefix is how a key of this kind starts.
func (k Kind) Prefix() string { return "sb_" + string(k) + "_" }

// Role is the Postgres role a key of this kind stands for.
func (k Kind) Role() string {
	if k == Secret {
		return "service_role"
	}
	return "anon"
}

// KindOf tells the kind of a key from its prefix.
func KindOf(key string) (Kind, bool) {
	for _, k := range []Kind{Publishable, Secret} {
		if strings.HasPrefix(key, k.Prefix()) {
			return k, true
		}
	}
	return "", false
}

// Key is one key as listed: never the key itself, which is shown once, when
// it is created.
type Key struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Kind      Kind       `json:"type"`
	Prefix    string     `json:"prefix"` // the kind's prefix and the first four characters after it
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Errors of the functions that change keys.
var (
	ErrNotFound = errors.New("no such API key")
	ErrBadName  = errors.New("a key name is 1 to 64 lower-case letters, digits and underscores")
	ErrExists   = errors.New("a valid key of that kind has that name already")
)

var validName = lazy.NewRegexp(`^[a-z0-9_]{1,64}$`)

func hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// New generates a key of kind k: its prefix and 32 random letters and
// digits.
func New(k Kind) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err) // crypto/rand does not fail on the systems Basalt runs on
		}
		b[i] = alphabet[v.Int64()]
	}
	return k.Prefix() + string(b)
}

// Shown is the part of a key that lists and logs show: its kind's prefix
// and the first four characters after it.
func Shown(key string) string {
	k, _ := KindOf(key)
	rest := strings.TrimPrefix(key, k.Prefix())
	if len(rest) > 4 {
		rest = rest[:4]
	}
	return k.Prefix() + rest
}

const columns = `id::text, name, type, prefix, created_at, revoked_at`

func scanKey(row pgx.Row) (Key, error) {
	var k Key
	err := row.Scan(&k.ID, &k.Name, &k.Kind, &k.Prefix, &k.CreatedAt, &k.RevokedAt)
	return k, err
}

// Create makes a new key of kind k named name and returns it: the only
// time the key itself is seen.
func Create(ctx context.Context, db pg.DB, k Kind, name string) (string, Key, error) {
	if !validName.MatchString(name) {
		return "", Key{}, ErrBadName
	}
	key := New(k)
	row := db.QueryRow(ctx, `INSERT INTO basalt.api_keys (name, type, prefix, sha256) VALUES ($1, $2, $3, $4)
		RETURNING `+columns, name, string(k), Shown(key), hash(key))
	got, err := scanKey(row)
	if pg.Is(err, "23505") {
		return "", Key{}, fmt.Errorf("%q: %w", name, ErrExists)
	}
	if err != nil {
		return "", Key{}, fmt.Errorf("create API key: %w", err)
	}
	return key, got, nil
}

// Import records a key that configuration names (keys.json, PUBLISHABLE_KEY,
// SECRET_KEY), so it is valid like the others, unless it is there already:
// a revoked one stays revoked. It reports whether the key is valid.
func Import(ctx context.Context, db pg.DB, key, name string) (bool, error) {
	k, ok := KindOf(key)
	if !ok {
		return false, fmt.Errorf("import API key: %q is not an sb_publishable_ or sb_secret_ key", Shown(key))
	}
	var revoked bool
	err := db.QueryRow(ctx, `WITH ins AS (
		  INSERT INTO basalt.api_keys (name, type, prefix, sha256)
		  SELECT $1, $2, $3, $4
		  WHERE NOT EXISTS (SELECT 1 FROM basalt.api_keys WHERE sha256 = $4)
		    AND NOT EXISTS (SELECT 1 FROM basalt.api_keys WHERE name = $1 AND type = $2 AND revoked_at IS NULL)
		  RETURNING false AS revoked)
		SELECT revoked FROM ins
		UNION ALL SELECT revoked_at IS NOT NULL FROM basalt.api_keys WHERE sha256 = $4
		LIMIT 1`, name, string(k), Shown(key), hash(key)).Scan(&revoked)
	if errors.Is(err, pgx.ErrNoRows) {
		// Another valid key has the name: record this one under a name of
		// its own.
		return Import(ctx, db, key, name+"_"+strings.ToLower(strings.TrimPrefix(Shown(key), k.Prefix())))
	}
	if err != nil {
		return false, fmt.Errorf("import API key: %w", err)
	}
	return !revoked, nil
}

// List returns every key, valid ones first, newest first.
func List(ctx context.Context, db pg.DB) ([]Key, error) {
	rows, err := db.Query(ctx, `SELECT `+columns+` FROM basalt.api_keys
		ORDER BY revoked_at IS NOT NULL, created_at DESC, name`)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Key, error) { return scanKey(r) })
}

// Revoke revokes the valid key of kind k named (or with the id) ref. From
// then on every node refuses it.
func Revoke(ctx context.Context, db pg.DB, k Kind, ref string) (Key, error) {
	got, err := scanKey(db.QueryRow(ctx, `UPDATE basalt.api_keys SET revoked_at = now()
		WHERE revoked_at IS NULL AND type = $1 AND (name = $2 OR id::text = $2)
		RETURNING `+columns, string(k), ref))
	if errors.Is(err, pgx.ErrNoRows) {
		return Key{}, fmt.Errorf("%s key %q: %w", k, ref, ErrNotFound)
	}
	if err != nil {
		return Key{}, fmt.Errorf("revoke API key: %w", err)
	}
	return got, nil
}

// Rotate replaces the valid key of kind k named (or with the id) ref with a
// new key of the same kind and name, in one transaction: the old key is
// refused from then on. To change keys without a moment when clients hold a
// refused one, Create a second key, move the clients to it, then Revoke
// the first.
func Rotate(ctx context.Context, db *pgxpool.Pool, k Kind, ref string) (string, Key, error) {
	var key string
	var got Key
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		old, err := Revoke(ctx, tx, k, ref)
		if err != nil {
			return err
		}
		key, got, err = Create(ctx, tx, old.Kind, old.Name)
		return err
	})
	return key, got, err
}

// Store is one node's copy of the valid keys' hashes.
type Store struct {
	// Listener, when set before Run, is the node's shared listener; nil:
	// Run listens on a connection of its own.
	Listener *pg.Listener

	db   *pgxpool.Pool
	log  *slog.Logger
	poll time.Duration

	mu    sync.RWMutex
	roles map[[sha256.Size]byte]string
	// changed is signalled after each refresh (tests wait on it).
	changed chan struct{}
}

// NewStore loads the valid keys once; Run follows changes.
func NewStore(ctx context.Context, db *pgxpool.Pool, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{db: db, log: log, poll: 5 * time.Second, changed: make(chan struct{}, 1)}
	return s, s.Refresh(ctx)
}

// Role returns the role the key stands for: ok is false for anything that
// is not a valid key of the project.
func (s *Store) Role(key string) (string, bool) {
	if _, ok := KindOf(key); !ok {
		return "", false
	}
	h := sha256.Sum256([]byte(key))
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.roles[h]
	return r, ok
}

// Refresh reloads the valid keys.
func (s *Store) Refresh(ctx context.Context) error {
	rows, err := s.db.Query(ctx, `SELECT sha256, type FROM basalt.api_keys WHERE revoked_at IS NULL`)
	if err != nil {
		return fmt.Errorf("load API keys: %w", err)
	}
	roles := map[[sha256.Size]byte]string{}
	var h []byte
	var kind string
	_, err = pgx.ForEachRow(rows, []any{&h, &kind}, func() error {
		var k [sha256.Size]byte
		copy(k[:], h)
		roles[k] = Kind(kind).Role()
		return nil
	})
	if err != nil {
		return fmt.Errorf("load API keys: %w", err)
	}
	s.mu.Lock()
	s.roles = roles
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

// Changed is signalled after each refresh.
func (s *Store) Changed() <-chan struct{} { return s.changed }

// Run follows changes until ctx ends: NOTIFY basalt_api_keys, and a poll
// in case a notification is missed.
func (s *Store) Run(ctx context.Context) {
	pg.Follow(ctx, s.Listener, s.db, "basalt_api_keys", s.poll, s.Refresh, s.log, "api keys")
}
