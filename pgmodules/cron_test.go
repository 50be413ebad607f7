package pgmodules_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/pgmodules"
)

// pg_cron's SQL interface in the database it serves: schedule, the cron.job
// row, alter_job, unschedule by name, and a refused schedule.
func TestCronInterface(t *testing.T) {
	db := pgtest.CronDB(t)
	ctx := context.Background()
	st, err := pgmodules.EnableCron(ctx, db.Admin)
	if err != nil || !st.Enabled || st.Version == "" || st.Problem != "" {
		t.Fatalf("cron status = %+v (%v)", st, err)
	}
	t.Cleanup(func() {
		_, _ = db.Admin.Exec(ctx, `SELECT cron.unschedule(jobname) FROM cron.job WHERE jobname LIKE 'iface_%'`)
	})
	id := scalar[int64](t, db.Admin, `SELECT cron.schedule('iface_nightly', '0 3 * * *', 'SELECT 1')`)
	var schedule, command string
	var active bool
	if err := db.Admin.QueryRow(ctx, `SELECT schedule, command, active FROM cron.job WHERE jobid = $1 AND jobname = 'iface_nightly'`, id).Scan(&schedule, &command, &active); err != nil {
		t.Fatal(err)
	}
	if schedule != "0 3 * * *" || command != "SELECT 1" || !active {
		t.Fatalf("cron.job row: %q %q %v", schedule, command, active)
	}
	// Scheduling the same name again replaces the job's schedule.
	if again := scalar[int64](t, db.Admin, `SELECT cron.schedule('iface_nightly', '30 4 * * *', 'SELECT 2')`); again != id {
		t.Fatalf("rescheduling made job %d, want %d", again, id)
	}
	exec(t, db.Admin, `SELECT cron.alter_job($1, active := false)`, id)
	if scalar[bool](t, db.Admin, `SELECT active FROM cron.job WHERE jobid = $1`, id) {
		t.Fatal("alter_job(active := false) left the job active")
	}
	if !scalar[bool](t, db.Admin, `SELECT cron.unschedule('iface_nightly')`) {
		t.Fatal("unschedule returned false")
	}
	if _, err := db.Admin.Exec(ctx, `SELECT cron.schedule('iface_bad', 'every now and then', 'SELECT 1')`); err == nil || !strings.Contains(err.Error(), "invalid schedule") {
		t.Fatalf("bad schedule: %v", err)
	}
	// Second schedules follow the engine: accepted from pg_cron 1.5 on.
	_, err = db.Admin.Exec(ctx, `SELECT cron.schedule('iface_seconds', '5 seconds', 'SELECT 1')`)
	if st.Seconds != (err == nil) {
		t.Fatalf("'5 seconds' with pg_cron %s (seconds %v): %v", st.Version, st.Seconds, err)
	}
}

// A job every second runs and is recorded, where pg_cron takes second
// schedules (1.5+); the minute-schedule run is covered by the two-node
// test in cmd/basalt.
func TestCronEverySecond(t *testing.T) {
	db := pgtest.CronDB(t)
	ctx := context.Background()
	st, err := pgmodules.Cron(ctx, db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Seconds {
		t.Skipf("pg_cron %s takes no second schedules (1.5 or newer does)", st.Version)
	}
	exec(t, db.Admin, `CREATE TABLE IF NOT EXISTS public.every_second (at timestamptz DEFAULT clock_timestamp())`)
	id := scalar[int64](t, db.Admin, `SELECT cron.schedule('every_second', '1 seconds', 'INSERT INTO public.every_second DEFAULT VALUES')`)
	fail := scalar[int64](t, db.Admin, `SELECT cron.schedule('every_second_fails', '1 seconds', 'SELECT 1/0')`)
	t.Cleanup(func() {
		_, _ = db.Admin.Exec(ctx, `SELECT cron.unschedule(jobid) FROM cron.job WHERE jobid IN ($1, $2)`, id, fail)
		_, _ = db.Admin.Exec(ctx, `DROP TABLE IF EXISTS public.every_second`)
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok := scalar[int64](t, db.Admin, `SELECT count(*) FROM cron.job_run_details WHERE jobid = $1 AND status = 'succeeded'`, id)
		failed := scalar[int64](t, db.Admin, `SELECT count(*) FROM cron.job_run_details WHERE jobid = $1 AND status = 'failed' AND return_message LIKE '%division by zero%'`, fail)
		if ok >= 3 && failed >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d succeeded runs, %d failed runs", ok, failed)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := scalar[int64](t, db.Admin, `SELECT count(*) FROM public.every_second`); n < 3 {
		t.Fatalf("%d rows written", n)
	}
}

// Outside the database pg_cron serves, the status says how to enable it.
func TestCronStatusOff(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	st, err := pgmodules.EnableCron(context.Background(), db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Enabled || !strings.Contains(st.Problem, "set cron.database_name = '"+db.Name+"'") {
		t.Fatalf("status = %+v", st)
	}
	if _, err := db.Admin.Exec(context.Background(), `SELECT cron.schedule('x', '* * * * *', 'SELECT 1')`); !pg.Is(err, "3F000") {
		t.Fatalf("cron.schedule without pg_cron: %v, want 3F000 (no cron schema)", err)
	}
}
