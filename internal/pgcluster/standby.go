package pgcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// StartStandby copies c with pg_basebackup -R (a streaming physical replica
// of c, hot standby: read-only queries allowed) into s.DataDir and starts
// it. s needs DataDir (which must not hold a cluster yet) and SocketDir;
// BinDir, RunAs and Superuser default to c's. c must be running and allow
// replication connections over its unix socket, as initdb's defaults do.
func (c *Cluster) StartStandby(ctx context.Context, s *Cluster) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if s.BinDir == "" {
		// PATH may hold only links to initdb and pg_ctl; pg_basebackup
		// sits beside the files they point at.
		s.BinDir = c.BinDir
		if real, err := filepath.EvalSymlinks(filepath.Join(c.BinDir, "initdb")); err == nil {
			s.BinDir = filepath.Dir(real)
		}
	}
	if s.RunAs == "" {
		s.RunAs = c.RunAs
	}
	if s.Superuser == "" {
		s.Superuser = c.Superuser
	}
	if err := s.defaults(); err != nil {
		return err
	}
	if s.Initialized() {
		return fmt.Errorf("standby data dir %s already holds a cluster", s.DataDir)
	}
	if err := os.MkdirAll(filepath.Dir(s.DataDir), 0o755); err != nil {
		return err
	}
	if err := s.ensureDir(s.DataDir, 0o700); err != nil {
		return err
	}
	// -R writes standby.signal and primary_conninfo; -X stream copies the
	// WAL the backup needs; -c fast starts without waiting for a checkpoint.
	if err := s.run(ctx, "pg_basebackup", "-D", s.DataDir, "-h", c.SocketDir, "-p", strconv.Itoa(c.portOrDefault()),
		"-U", c.Superuser, "-R", "-X", "stream", "-c", "fast", "--no-sync"); err != nil {
		return err
	}
	// The copied postmaster settings stay; the standby's own sockets and
	// port come from s at Start.
	return s.Start(ctx)
}

// StartTempStandby is StartStandby into a new temporary folder named after
// prefix; the returned stop function stops the standby at once and removes
// the folder.
func StartTempStandby(ctx context.Context, primary *Cluster, prefix string) (*Cluster, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	s := &Cluster{DataDir: filepath.Join(dir, "data"), SocketDir: dir}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.Stop(sctx, "immediate")
		_ = os.RemoveAll(dir)
	}
	if err := primary.StartStandby(ctx, s); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start standby: %w", err)
	}
	return s, stop, nil
}
