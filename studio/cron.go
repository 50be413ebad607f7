package studio

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The Cron screen: pg_cron's jobs (cron.job) with their last run, their run
// history (cron.job_run_details), and schedule, alter and unschedule
// through pg_cron's own functions, so a job made here is the job
// `select cron.schedule(...)` makes. Where pg_cron is not running, the
// screen says why and how to turn it on (basalt.cron_status()).

// cronState is pg_cron's state as basalt.cron_status() reports it.
type cronState struct {
	Enabled bool   `json:"enabled"`
	Version string `json:"version,omitempty"`
	Seconds bool   `json:"seconds"`
	Problem string `json:"problem,omitempty"`
}

func (s *Service) cronState(ctx context.Context) (cronState, error) {
	var st cronState
	var raw []byte
	if err := s.d.Admin.QueryRow(ctx, `SELECT basalt.cron_status()`).Scan(&raw); err != nil {
		return st, err
	}
	return st, json.Unmarshal(raw, &st)
}

// requireCron refuses a cron write with the status's own sentence when
// pg_cron is not running in this database.
func (s *Service) requireCron(ctx context.Context) error {
	st, err := s.cronState(ctx)
	if err != nil {
		return err
	}
	if !st.Enabled {
		return badRequest("Cron is off: %s", st.Problem)
	}
	return nil
}

// cronJobs answers {status, jobs}: every job with its last run and how many
// of its last 100 runs failed.
func (s *Service) cronJobs(w http.ResponseWriter, r *http.Request) error {
	st, err := s.cronState(r.Context())
	if err != nil {
		return err
	}
	jobs := json.RawMessage("[]")
	if st.Enabled {
		err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.jobid), '[]') FROM (SELECT
		  j.jobid, j.jobname, j.schedule, j.command, j.active, j.username, j.database,
		  (SELECT to_json(d) FROM (SELECT runid, status, return_message, start_time, end_time FROM cron.job_run_details
		    WHERE jobid = j.jobid ORDER BY runid DESC LIMIT 1) d) AS last_run,
		  -- Among the last 100 runs: pg_cron keeps every run, with no index by job.
		  (SELECT count(*) FILTER (WHERE r.status = 'failed') FROM (SELECT status FROM cron.job_run_details
		    WHERE jobid = j.jobid ORDER BY runid DESC LIMIT 100) r) AS failed_runs
		FROM cron.job j) x`).Scan(&jobs)
		if err != nil {
			return err
		}
	}
	return okJSON(w, map[string]any{"status": st, "jobs": jobs})
}

// cronJob is the body of a create or an edit.
type cronJob struct {
	Name     *string `json:"jobname"`
	Schedule *string `json:"schedule"`
	Command  *string `json:"command"`
	Active   *bool   `json:"active"`
}

// writeCronJob answers with one job as cronJobs lists it.
func (s *Service) writeCronJob(w http.ResponseWriter, ctx context.Context, id int64) error {
	var out json.RawMessage
	err := s.d.Admin.QueryRow(ctx, `SELECT to_json(x) FROM (SELECT jobid, jobname, schedule, command, active, username, database
		FROM cron.job WHERE jobid = $1) x`, id).Scan(&out)
	if isNoRows(err) {
		return notFound("Cannot find a cron job with ID %d", id)
	} else if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// createCronJob schedules a job with cron.schedule(name, schedule,
// command); as in pg_cron, a name already taken replaces that job.
func (s *Service) createCronJob(w http.ResponseWriter, r *http.Request) error {
	var b cronJob
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if b.Name == nil || *b.Name == "" || b.Schedule == nil || *b.Schedule == "" || b.Command == nil || *b.Command == "" {
		return badRequest("jobname, schedule and command are required")
	}
	noteAudit(r.Context(), "cron job "+*b.Name, nil)
	if err := s.requireCron(r.Context()); err != nil {
		return err
	}
	var id int64
	err := pgx.BeginFunc(r.Context(), s.d.Admin, func(tx pgx.Tx) error {
		if err := tx.QueryRow(r.Context(), `SELECT cron.schedule($1, $2, $3)`, *b.Name, *b.Schedule, *b.Command).Scan(&id); err != nil {
			return err
		}
		if b.Active != nil && !*b.Active {
			_, err := tx.Exec(r.Context(), `SELECT cron.alter_job($1, active := false)`, id)
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	noteAudit(r.Context(), "cron job "+strconv.FormatInt(id, 10)+" "+*b.Name, nil)
	return s.writeCronJob(w, r.Context(), id)
}

// cronJobID reads the {id} of a job that exists.
func (s *Service) cronJobID(r *http.Request) (int64, string, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, "", notFound("Cannot find a cron job with ID %s", r.PathValue("id"))
	}
	if err := s.requireCron(r.Context()); err != nil {
		return 0, "", err
	}
	var name *string
	err = s.d.Admin.QueryRow(r.Context(), `SELECT jobname FROM cron.job WHERE jobid = $1`, id).Scan(&name)
	if isNoRows(err) {
		return 0, "", notFound("Cannot find a cron job with ID %d", id)
	}
	label := "cron job " + strconv.FormatInt(id, 10)
	if name != nil {
		label += " " + *name
	}
	noteAudit(r.Context(), label, nil)
	return id, label, err
}

// updateCronJob changes a job's schedule, command or active flag through
// cron.alter_job (pg_cron keeps a job's name).
func (s *Service) updateCronJob(w http.ResponseWriter, r *http.Request) error {
	var b cronJob
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	noteAudit(r.Context(), "cron job "+r.PathValue("id"), nil)
	if b.Name != nil {
		return badRequest("a job's name cannot change: unschedule it and schedule a new one")
	}
	id, _, err := s.cronJobID(r)
	if err != nil {
		return err
	}
	if _, err := s.d.Admin.Exec(r.Context(), `SELECT cron.alter_job($1, schedule := $2, command := $3, active := $4)`,
		id, b.Schedule, b.Command, b.Active); err != nil {
		return err
	}
	return s.writeCronJob(w, r.Context(), id)
}

// deleteCronJob unschedules a job (pg_cron keeps its past runs).
func (s *Service) deleteCronJob(w http.ResponseWriter, r *http.Request) error {
	noteAudit(r.Context(), "cron job "+r.PathValue("id"), nil)
	id, _, err := s.cronJobID(r)
	if err != nil {
		return err
	}
	var ok bool
	if err := s.d.Admin.QueryRow(r.Context(), `SELECT cron.unschedule($1::int8)`, id).Scan(&ok); err != nil {
		return err
	}
	return okJSON(w, map[string]any{"jobid": id, "unscheduled": ok})
}

// cronRuns lists a job's runs, newest first: ?limit= (50, at most 500),
// ?status= (succeeded, failed, running, starting).
func (s *Service) cronRuns(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return notFound("Cannot find a cron job with ID %s", r.PathValue("id"))
	}
	limit, err := queryLimit(r, 50, 500)
	if err != nil {
		return err
	}
	st, err := s.cronState(r.Context())
	if err != nil {
		return err
	}
	if !st.Enabled {
		writeRaw(w, http.StatusOK, []byte("[]"))
		return nil
	}
	var status *string
	if v := r.URL.Query().Get("status"); v != "" {
		status = &v
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.runid DESC), '[]') FROM (
	  SELECT runid, jobid, job_pid, status, return_message, start_time, end_time,
	    extract(epoch FROM end_time - start_time) * 1000 AS duration_ms
	  FROM cron.job_run_details WHERE jobid = $1 AND ($2::text IS NULL OR status = $2)
	  ORDER BY runid DESC LIMIT $3) x`, id, status, limit).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// queryLimit reads ?limit=, def when absent, refused past max.
func queryLimit(r *http.Request, def, max int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, badRequest("limit must be a number from 1 to %d", max)
	}
	return n, nil
}
