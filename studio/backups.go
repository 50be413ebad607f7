package studio

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
)

// Backups is what the Database screen's backups run: `basalt backup` and
// `basalt restore`'s own code, which the binary hands Studio (Studio reads
// no object store itself).
type Backups interface {
	// List returns the backups kept where Run writes them, newest first.
	List(ctx context.Context) ([]BackupInfo, error)
	// Run writes a backup of the database and its object store.
	Run(ctx context.Context) (BackupInfo, error)
	// Restore brings backup name into a new database of that name (created
	// here, refused if it exists) and a new, empty object store.
	Restore(ctx context.Context, name, database string) (RestoreInfo, error)
}

// BackupInfo is one backup as the screen lists it.
type BackupInfo struct {
	Name            string    `json:"name"`
	CreatedAt       time.Time `json:"created_at"`
	BasaltVersion   string    `json:"basalt_version"`
	PostgresVersion string    `json:"postgres_version"`
	DatabaseBytes   int64     `json:"database_bytes"`
	Objects         int       `json:"objects"`
	ObjectBytes     int64     `json:"object_bytes"`
}

// RestoreInfo says where a restore went and what it could not bring back.
type RestoreInfo struct {
	Database string   `json:"database"`
	Storage  string   `json:"storage"`
	Notes    []string `json:"notes"`
}

// errNoBackups answers when the binary gave Studio no way to back up.
var errNoBackups = &httpError{http.StatusNotImplemented, errorBody{Error: "backups are not available in this Studio: run basalt backup"}}

func (s *Service) listBackups(w http.ResponseWriter, r *http.Request) error {
	if s.d.Backups == nil {
		return errNoBackups
	}
	list, err := s.d.Backups.List(r.Context())
	if err != nil {
		return err
	}
	if list == nil {
		list = []BackupInfo{}
	}
	return okJSON(w, list)
}

func (s *Service) runBackup(w http.ResponseWriter, r *http.Request) error {
	noteAudit(r.Context(), "backup", nil)
	if s.d.Backups == nil {
		return errNoBackups
	}
	b, err := s.d.Backups.Run(r.Context())
	if err != nil {
		return err
	}
	noteAudit(r.Context(), "backup "+b.Name, nil)
	httpx.WriteJSON(w, http.StatusCreated, b)
	return nil
}

// refusal gives an error that names its HTTP status (no such backup, a
// database that exists) that status.
func refusal(err error) error {
	var st interface{ HTTPStatus() int }
	if errors.As(err, &st) {
		return &httpError{st.HTTPStatus(), errorBody{Error: err.Error()}}
	}
	return err
}

// databaseName is what a database made by a restore may be called.
var databaseName = lazy.NewRegexp(`^[a-z_][a-z0-9_]{0,62}$`)

// restoreBackup is {database}: the new database's name.
func (s *Service) restoreBackup(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Database string `json:"database"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	name := r.PathValue("name")
	noteAudit(r.Context(), "backup "+name+" into database "+b.Database, nil)
	if s.d.Backups == nil {
		return errNoBackups
	}
	if !databaseName.MatchString(b.Database) {
		return badRequest("database must be a new database's name: lower-case letters, digits and underscores (at most 63)")
	}
	info, err := s.d.Backups.Restore(r.Context(), name, b.Database)
	if err != nil {
		return refusal(err)
	}
	return okJSON(w, info)
}
