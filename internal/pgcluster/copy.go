package pgcluster

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// notCopied are files of a data directory that belong to one run of one
// cluster, not to what a copy of it starts from; so are the files in
// runLogDir (the logging collector's, ServerLogSettings), kept as a folder.
var notCopied = map[string]bool{"server.log": true, "postmaster.pid": true, "postmaster.opts": true, "current_logfiles": true}

// runLogDir is the logging collector's folder (log_directory).
const runLogDir = "log"

// CopyTo copies the cluster's data directory, which no server may be
// running on, to dst (which must not exist yet): a cluster made once
// (initdb, migrations) that fresh data directories start from with
// CopyFrom instead of doing the same work again.
func (c *Cluster) CopyTo(dst string) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if !c.Initialized() {
		return fmt.Errorf("copy cluster: %s holds no cluster", c.DataDir)
	}
	if c.Running() {
		return fmt.Errorf("copy cluster: a server is running on %s", c.DataDir)
	}
	if err := copyTree(c.DataDir, dst, -1, -1); err != nil {
		_ = os.RemoveAll(dst)
		return err
	}
	return nil
}

// CopyFrom fills DataDir, which must not hold a cluster yet, with a copy of
// the stopped cluster at src, made by CopyTo from a cluster of the same
// binaries and Settings. The files are handed to the server user.
func (c *Cluster) CopyFrom(src string) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if c.Initialized() {
		return fmt.Errorf("copy cluster: %s already holds a cluster", c.DataDir)
	}
	if err := os.MkdirAll(filepath.Dir(c.DataDir), 0o755); err != nil {
		return err
	}
	// initdb accepts an empty data directory; so does a copy.
	if err := os.Remove(c.DataDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("copy cluster: %s is not empty: %w", c.DataDir, err)
	}
	if err := copyTree(src, c.DataDir, c.uid, c.gid); err != nil {
		_ = os.RemoveAll(c.DataDir)
		return err
	}
	return nil
}

// copyTree copies the folder src to dst (created with src's modes), leaving
// out notCopied at its top; uid >= 0 owns every file and folder made.
// Regular files go through io.Copy, which on Linux lets the kernel copy
// (copy_file_range: a reflink where the file system has them).
func copyTree(src, dst string, uid, gid int) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if notCopied[rel] || filepath.Dir(rel) == runLogDir {
			return nil
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(to, info.Mode().Perm()); err != nil {
				return fmt.Errorf("copy cluster: %w", err)
			}
		case d.Type().IsRegular():
			if err := copyFile(path, to, info.Mode().Perm()); err != nil {
				return fmt.Errorf("copy cluster: %w", err)
			}
		default:
			return fmt.Errorf("copy cluster: %s is neither a file nor a folder", path)
		}
		if uid >= 0 {
			if err := os.Lchown(to, uid, gid); err != nil {
				return fmt.Errorf("copy cluster: %w", err)
			}
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
