package app_test

import (
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
)

const (
	submitKYCSQL = `SELECT public.submit_kyc($1, $2, $3, $4)::text`
	reviewKYCSQL = `SELECT public.admin_review_kyc($1, $2, $3, $4)::text`
)

// TestKYCSubmissionRefusals: what an artist's submission must be (their own,
// unsuspended, well-formed, with a document they uploaded) and who may
// decide it (an admin other than the artist, never the artist by a direct
// write).
func TestKYCSubmissionRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	suspended := e.signUp("artist")
	e.exec(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'x' WHERE id = $1`, suspended)
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('kyc', $1), ('tracks', $2)`, w.artist2+"/id.png", w.artist+"/id.png")
	for _, tc := range []struct {
		name string
		as   caller
		args []any
		msg  string
	}{
		{"a suspended artist", user(suspended), []any{"Ada Obi", "passport", "A1234567", nil}, "Suspended accounts cannot submit KYC"},
		{"a NIN that is not 11 digits", user(w.artist), []any{"Ada Obi", "nin", "1234567890", nil}, "A NIN is 11 digits"},
		{"a number with markup", user(w.artist), []any{"Ada Obi", "passport", "A12<b>34", nil}, "Enter the document number as it is printed"},
		{"a one-letter name", user(w.artist), []any{" A ", "passport", "A1234567", nil}, "Enter your full name as it appears on the document"},
		{"a document never uploaded", user(w.artist), []any{"Ada Obi", "passport", "A1234567", w.artist + "/missing.png"}, "Upload the document before submitting"},
		{"a document in another bucket", user(w.artist), []any{"Ada Obi", "passport", "A1234567", w.artist + "/id.png"}, "Upload the document before submitting"},
		{"a path climbing into another folder", user(w.artist), []any{"Ada Obi", "passport", "A1234567", w.artist + "/../" + w.artist2 + "/id.png"}, "The document must be uploaded to your own folder"},
	} {
		before := e.state()
		if _, err := e.callJSON(tc.as, submitKYCSQL, tc.args...); sqlMessage(err) != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
		if after := e.state(); after != before {
			t.Errorf("%s changed something", tc.name)
		}
	}

	// The artist cannot decide their own submission: not through the review
	// function, not by writing the submission or their profile.
	sub := e.submitKYC(w.artist)
	before := e.state()
	inYear := time.Now().AddDate(1, 0, 0)
	if _, err := e.callJSON(user(w.artist), reviewKYCSQL, sub, true, inYear, nil); sqlState(err) != denied {
		t.Errorf("artist reviews own submission: %v", err)
	}
	if _, err := e.execAs(user(w.artist), `UPDATE public.kyc_submissions SET status = 'approved', expires_at = $2 WHERE id = $1`, sub, inYear); sqlState(err) != denied {
		t.Errorf("artist updates own submission: %v", err)
	}
	if _, err := e.execAs(user(w.artist), `UPDATE public.artist_profiles SET kyc_status = 'approved', kyc_expiry_date = $2 WHERE id = $1`, w.artist, inYear); sqlState(err) != denied {
		t.Errorf("artist updates own kyc_status: %v", err)
	}
	if after := e.state(); after != before {
		t.Error("a refused review changed something")
	}
}

// TestKYCNoSelfReview: an artist promoted to admin keeps the submission made
// as an artist, and cannot decide it; another admin can.
func TestKYCNoSelfReview(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	inYear := time.Now().AddDate(1, 0, 0)
	promoted := e.signUp("artist")
	own := e.submitKYC(promoted)
	e.exec(`SELECT backline.promote_to_admin($1)`, promoted)
	before := e.state()
	if _, err := e.callJSON(user(promoted), reviewKYCSQL, own, true, inYear, nil); sqlMessage(err) != "Admins cannot review their own KYC submission" {
		t.Errorf("admin reviews own submission: %v", err)
	}
	if after := e.state(); after != before {
		t.Error("a refused self-review changed something")
	}
	e.mustJSON(user(w.admin), reviewKYCSQL, own, false, nil, "Reviewed by another admin")
}

// TestKYCResubmission: a rejected artist submits again; an approval blocks a
// new submission until its last verification_renewal_days days, and a
// renewal keeps the running approval while it waits.
func TestKYCResubmission(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	first := e.submitKYC(w.artist)
	e.mustJSON(admin, reviewKYCSQL, first, false, nil, "Photo is blurred")
	if s := scalar[string](e, `SELECT kyc_status FROM public.artist_profiles WHERE id = $1`, w.artist); s != "rejected" {
		t.Fatalf("kyc_status %s after rejection", s)
	}
	second := e.submitKYC(w.artist)
	if s := scalar[string](e, `SELECT kyc_status FROM public.artist_profiles WHERE id = $1`, w.artist); s != "pending" {
		t.Errorf("kyc_status %s after resubmission", s)
	}
	expiry := time.Date(time.Now().Year()+1, 3, 15, 12, 0, 0, 0, time.UTC)
	e.mustJSON(admin, reviewKYCSQL, second, true, expiry, nil)

	want := "Your KYC is approved until 15 Mar " + expiry.Format("2006") + ". You can resubmit it in its last 30 days."
	if _, err := e.callJSON(user(w.artist), submitKYCSQL, "Ada Obi", "passport", "A7654321", nil); sqlMessage(err) != want {
		t.Errorf("submission while approved: %v, want %q", err, want)
	}
	// In the approval's last 30 days a renewal is taken, and the approval
	// still counts while it waits.
	e.exec(`UPDATE public.artist_profiles SET kyc_expiry_date = now() + interval '20 days' WHERE id = $1`, w.artist)
	e.mustJSON(user(w.artist), submitKYCSQL, "Ada Obi", "passport", "A7654321", nil)
	if ok := scalar[bool](e, `SELECT a.has_valid_kyc FROM public.artist_profiles a WHERE id = $1`, w.artist); !ok {
		t.Error("a pending renewal ended the running approval")
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.kyc_submissions WHERE artist_id = $1`, w.artist); n != 3 {
		t.Errorf("%d submissions, want 3", n)
	}
}

// TestKYCConcurrentSubmissions: two submissions at once leave one pending;
// the other waits for the first and gets the message, not a unique-index
// error.
func TestKYCConcurrentSubmissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	tx, err := e.db.User.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck
	if err := pg.SetupTx(e.ctx, tx, user(w.artist).request()); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, `SELECT public.submit_kyc('Ada Obi', 'passport', 'A1234567')`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.callJSON(user(w.artist), submitKYCSQL, "Ada Obi", "passport", "A1234567", nil)
		done <- err
	}()
	// Give the second submission time to reach the first one's lock.
	time.Sleep(300 * time.Millisecond)
	if err := tx.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; sqlMessage(err) != "Your KYC submission is already awaiting review" {
		t.Errorf("second submission: %v", err)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.kyc_submissions WHERE artist_id = $1`, w.artist); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}
