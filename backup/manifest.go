// Package backup writes and restores a consistent snapshot of a Basalt
// project: a pg_dump of the database and a copy of every storage object's
// bytes, both taken at one point in time through an exported snapshot, plus a
// manifest (manifest.json) that lists the objects with their SHA-256.
//
// The layout, in a directory or a tar (optionally gzipped) with the same
// entries:
//
//	manifest.json
//	database.dump              pg_dump custom format
//	objects/ab/ab12…           object bytes, named by their SHA-256
package backup

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

// Format names the manifest format; FormatVersion is bumped on any change a
// reader must know about. Restore refuses versions it does not know.
const (
	Format        = "basalt-backup"
	FormatVersion = 1
)

// Entry names inside a backup.
const (
	manifestFile = "manifest.json"
	dumpFile     = "database.dump"
	objectsDir   = "objects"
)

// Manifest describes one backup.
type Manifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	CreatedAt     time.Time `json:"created_at"` // the snapshot's time, from the server
	BasaltVersion string    `json:"basalt_version"`
	// PostgresVersion is the source server's server_version.
	PostgresVersion string `json:"postgres_version"`
	// Migrations is the latest applied migration of each source.
	Migrations []Migration `json:"migrations"`
	Database   File        `json:"database"`
	// Roles are the cluster roles the dump's grants and settings refer to;
	// restore creates the missing ones (roles live outside any database).
	Roles   []Role   `json:"roles"`
	Objects []Object `json:"objects"`
	// Notes are what Restore could not bring back, for the operator.
	Notes []string `json:"-"`
}

// Migration is the last applied migration of one source.
type Migration struct {
	Source  string `json:"source"`
	Version string `json:"version"`
	Name    string `json:"name"`
}

// File is a file in the backup with its checksum.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Object is one storage.objects row and its bytes.
type Object struct {
	Bucket  string `json:"bucket"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"` // empty for rows written by plain SQL
	Size    int64  `json:"size"`
	ETag    string `json:"etag,omitempty"` // metadata.eTag (MD5 of the bytes for API uploads)
	// Mimetype is metadata.mimetype, handed to the store on restore (S3
	// keeps it with the bytes).
	Mimetype string `json:"mimetype,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	// Missing marks a row whose bytes were already gone from the store when
	// the backup ran; restore leaves it without bytes, as it was.
	Missing bool `json:"missing,omitempty"`
}

// objectPath is where bytes with this SHA-256 live in a backup. Paths come
// from the checksum only (never from the manifest's text), so a crafted
// manifest cannot point outside the backup.
func objectPath(sum string) (string, error) {
	if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
		return "", fmt.Errorf("bad sha256 %q in manifest", sum)
	}
	return path.Join(objectsDir, sum[:2], sum), nil
}

// writeManifest writes dir/manifest.json.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, manifestFile), append(b, '\n'), 0o600)
}

// ReadManifest reads the manifest of the backup at from (a directory or a
// tar written by Backup).
func ReadManifest(from string) (*Manifest, error) {
	st, err := os.Stat(from)
	if err != nil {
		return nil, fmt.Errorf("backup %s: %w", from, err)
	}
	if st.IsDir() {
		return readManifest(from)
	}
	return readTarManifest(from)
}

// readManifest reads and checks dir/manifest.json.
func readManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil, fmt.Errorf("read backup manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse backup manifest: %w", err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("%s is not a Basalt backup manifest (format %q)", manifestFile, m.Format)
	}
	if m.FormatVersion < 1 || m.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("backup format version %d is not supported by this basalt (it reads 1 to %d)", m.FormatVersion, FormatVersion)
	}
	if m.Database.Path != dumpFile {
		return nil, fmt.Errorf("backup manifest names database file %q, want %q", m.Database.Path, dumpFile)
	}
	return &m, nil
}
