package deploy

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Store reads and writes deployed functions and secrets in Postgres
// (basalt.function_versions, basalt.functions, basalt.secrets).
type Store struct {
	db   *pgxpool.Pool
	aead cipher.AEAD
}

// NewStore uses db (the admin pool) and seals secrets with a key derived
// from secretKey (BASALT_SECRETS_KEY, else the project's JWT secret).
func NewStore(db *pgxpool.Pool, secretKey []byte) (*Store, error) {
	if len(secretKey) == 0 {
		return nil, errors.New("deploy: no key to seal secrets with")
	}
	key, err := hkdf.Key(sha256.New, secretKey, nil, "basalt function secrets v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, aead: aead}, nil
}

// Version is one deployed version of a function.
type Version struct {
	Name      string    `json:"name"`
	Version   int       `json:"version"`
	SHA256    string    `json:"sha256"`
	VerifyJWT bool      `json:"verify_jwt"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by,omitempty"`
}

// ErrNotFound: no such function or version.
var ErrNotFound = errors.New("not found")

// Deploy stores bundle as the next version of name and makes it active.
func (s *Store) Deploy(ctx context.Context, name string, bundle []byte, verifyJWT bool, by string) (Version, error) {
	sum := sha256.Sum256(bundle)
	v := Version{Name: name, SHA256: hex.EncodeToString(sum[:]), VerifyJWT: verifyJWT, Active: true, CreatedBy: by}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		// One deploy of a name at a time: versions are numbered in order.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('basalt.functions:' || $1))`, name); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO basalt.function_versions (name, version, bundle, sha256, verify_jwt, created_by)
			SELECT $1, coalesce(max(version), 0) + 1, $2, $3, $4, nullif($5, '')
			FROM basalt.function_versions WHERE name = $1
			RETURNING version, created_at`, name, bundle, v.SHA256, verifyJWT, by).Scan(&v.Version, &v.CreatedAt)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO basalt.functions (name, active_version) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET active_version = EXCLUDED.active_version, updated_at = now()`,
			name, v.Version)
		return err
	})
	if err != nil {
		return Version{}, fmt.Errorf("deploy %s: %w", name, err)
	}
	return v, nil
}

// Rollback makes version to of name active again; to 0 means the version
// before the active one.
func (s *Store) Rollback(ctx context.Context, name string, to int) (Version, error) {
	var v Version
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var active int
		err := tx.QueryRow(ctx, `SELECT active_version FROM basalt.functions WHERE name = $1 FOR UPDATE`, name).Scan(&active)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		q := `SELECT name, version, sha256, verify_jwt, created_at, coalesce(created_by, '')
			FROM basalt.function_versions WHERE name = $1 AND version = $2`
		args := []any{name, to}
		if to == 0 {
			q = `SELECT name, version, sha256, verify_jwt, created_at, coalesce(created_by, '')
				FROM basalt.function_versions WHERE name = $1 AND version < $2 ORDER BY version DESC LIMIT 1`
			args = []any{name, active}
		}
		err = tx.QueryRow(ctx, q, args...).Scan(&v.Name, &v.Version, &v.SHA256, &v.VerifyJWT, &v.CreatedAt, &v.CreatedBy)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE basalt.functions SET active_version = $2, updated_at = now() WHERE name = $1`, name, v.Version)
		return err
	})
	v.Active = err == nil
	return v, err
}

// Delete removes a function and every version of it.
func (s *Store) Delete(ctx context.Context, name string) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM basalt.functions WHERE name = $1`, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		_, err = tx.Exec(ctx, `DELETE FROM basalt.function_versions WHERE name = $1`, name)
		return err
	})
}

// List returns every version of every function (name, version order).
func (s *Store) List(ctx context.Context) ([]Version, error) {
	rows, err := s.db.Query(ctx, `
		SELECT v.name, v.version, v.sha256, v.verify_jwt, f.active_version = v.version, v.created_at, coalesce(v.created_by, '')
		FROM basalt.function_versions v JOIN basalt.functions f USING (name)
		ORDER BY v.name, v.version`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Version, error) {
		var v Version
		err := r.Scan(&v.Name, &v.Version, &v.SHA256, &v.VerifyJWT, &v.Active, &v.CreatedAt, &v.CreatedBy)
		return v, err
	})
}

// active is what a node serves: each function's active version.
type active struct {
	Version   int
	SHA256    string
	VerifyJWT bool
}

func (s *Store) actives(ctx context.Context) (map[string]active, error) {
	rows, err := s.db.Query(ctx, `
		SELECT f.name, v.version, v.sha256, v.verify_jwt
		FROM basalt.functions f JOIN basalt.function_versions v ON v.name = f.name AND v.version = f.active_version`)
	if err != nil {
		return nil, err
	}
	out := map[string]active{}
	var name string
	var a active
	_, err = pgx.ForEachRow(rows, []any{&name, &a.Version, &a.SHA256, &a.VerifyJWT}, func() error {
		out[name] = a
		return nil
	})
	return out, err
}

func (s *Store) bundle(ctx context.Context, name string, version int) ([]byte, error) {
	var b []byte
	err := s.db.QueryRow(ctx, `SELECT bundle FROM basalt.function_versions WHERE name = $1 AND version = $2`,
		name, version).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return b, err
}

// SetSecrets stores secrets, sealed.
func (s *Store) SetSecrets(ctx context.Context, secrets map[string]string) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		for name, value := range secrets {
			sealed, err := s.seal(name, value)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `
				INSERT INTO basalt.secrets (name, sealed) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed, updated_at = now()`, name, sealed)
			if pg.Is(err, "23514") {
				return fmt.Errorf("%w: %q is not a valid secret name (letters, digits and _, not starting with SUPABASE_)", ErrBadSecret, name)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// ErrBadSecret: a secret name the store refuses.
var ErrBadSecret = errors.New("invalid secret")

// UnsetSecrets removes secrets; names not set are ignored.
func (s *Store) UnsetSecrets(ctx context.Context, names []string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM basalt.secrets WHERE name = ANY($1)`, names)
	return err
}

// SecretInfo is what listing shows of a secret: never its value.
type SecretInfo struct {
	Name      string    `json:"name"`
	Digest    string    `json:"digest"` // sha256 of the value, as `supabase secrets list`
	UpdatedAt time.Time `json:"updated_at"`
}

// ListSecrets names the secrets with their values' digests.
func (s *Store) ListSecrets(ctx context.Context) ([]SecretInfo, error) {
	values, err := s.Secrets(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT name, updated_at FROM basalt.secrets ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (SecretInfo, error) {
		var i SecretInfo
		if err := r.Scan(&i.Name, &i.UpdatedAt); err != nil {
			return i, err
		}
		sum := sha256.Sum256([]byte(values[i.Name]))
		i.Digest = hex.EncodeToString(sum[:])
		return i, nil
	})
}

// Secrets returns every secret's value.
func (s *Store) Secrets(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.Query(ctx, `SELECT name, sealed FROM basalt.secrets`)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var name string
	var sealed []byte
	_, err = pgx.ForEachRow(rows, []any{&name, &sealed}, func() error {
		v, err := s.open(name, sealed)
		if err != nil {
			return err
		}
		out[name] = v
		return nil
	})
	return out, err
}

// seal encrypts value with AES-GCM, bound to the secret's name.
func (s *Store) seal(name, value string) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, []byte(value), []byte(name)), nil
}

func (s *Store) open(name string, sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", fmt.Errorf("secret %s: sealed value too short", name)
	}
	b, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(name))
	if err != nil {
		return "", fmt.Errorf("secret %s cannot be opened with this key (was the key changed?): %w", name, err)
	}
	return string(b), nil
}
