package app_test

import (
	"testing"
	"time"
)

// TestAdminKYC: artists submit, admins approve with an expiry (has_valid_kyc
// follows it) or reject with a reason; the artist is told; audited.
func TestAdminKYC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	submit := `SELECT public.submit_kyc($1, $2, $3, $4)::text`
	for _, tc := range []struct {
		name string
		as   caller
		args []any
		msg  string
	}{
		{"a fan", user(w.fan), []any{"Ada", "passport", "A123", nil}, "Only artists can submit KYC"},
		{"no number", user(w.artist), []any{"Ada", "passport", " ", nil}, "Enter your full name, a document type and its number"},
		{"unknown document", user(w.artist), []any{"Ada", "library card", "A123", nil}, "Enter your full name, a document type and its number"},
		{"someone else's folder", user(w.artist), []any{"Ada", "passport", "A123", w.artist2 + "/id.png"}, "The document must be uploaded to your own folder"},
	} {
		if _, err := e.callJSON(tc.as, submit, tc.args...); sqlMessage(err) != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
	if _, err := e.execAs(user(w.artist), `INSERT INTO public.kyc_submissions (artist_id, full_name, document_type, document_number) VALUES ($1, 'x', 'nin', '123')`, w.artist); sqlState(err) != denied {
		t.Errorf("direct insert: %v", err)
	}
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('kyc', $1)`, w.artist+"/nin.png")
	first := e.mustJSON(user(w.artist), submit, "Kola Ade", "nin", "12345678901", w.artist+"/nin.png")["id"].(string)
	if _, err := e.callJSON(user(w.artist), submit, "Kola Ade", "nin", "1", nil); sqlMessage(err) != "Your KYC submission is already awaiting review" {
		t.Errorf("second pending: %v", err)
	}
	if s := scalar[string](e, `SELECT kyc_status FROM public.artist_profiles WHERE id = $1`, w.artist); s != "pending" {
		t.Errorf("kyc_status %s", s)
	}
	other := e.submitKYC(w.artist2)
	queue := e.mustRows(admin, `SELECT * FROM public.admin_list_kyc()`)
	if len(queue) != 2 || queue[0]["id"] != first || queue[0]["document_path"] != w.artist+"/nin.png" {
		t.Errorf("queue %v", queue)
	}
	// Artists read their own submissions only.
	if n, err := e.try(user(w.artist), `SELECT id FROM public.kyc_submissions`); err != nil || n != 1 {
		t.Errorf("artist reads %d submissions: %v", n, err)
	}

	review := `SELECT public.admin_review_kyc($1, $2, $3, $4)::text`
	if _, err := e.callJSON(admin, review, first, true, nil, nil); sqlMessage(err) != "Approval needs an expiry date in the future" {
		t.Errorf("approve without expiry: %v", err)
	}
	if _, err := e.callJSON(admin, review, first, true, time.Now().Add(-time.Hour), nil); sqlMessage(err) != "Approval needs an expiry date in the future" {
		t.Errorf("approve with a past expiry: %v", err)
	}
	if _, err := e.callJSON(admin, review, other, false, nil, ""); sqlMessage(err) != "A reason is required" {
		t.Errorf("reject without reason: %v", err)
	}
	expiry := time.Date(time.Now().Year()+1, 3, 15, 12, 0, 0, 0, time.UTC)
	e.mustJSON(admin, review, first, true, expiry, nil)
	e.mustJSON(admin, review, other, false, nil, "Document is unreadable")
	if _, err := e.callJSON(admin, review, first, false, nil, "x"); sqlMessage(err) != "KYC submission is already approved" {
		t.Errorf("review twice: %v", err)
	}
	var valid1, valid2 bool
	if err := e.query(anon, `SELECT a.has_valid_kyc FROM public.artist_profiles a WHERE id = $1`, []any{w.artist}, &valid1); err != nil {
		t.Fatal(err)
	}
	if err := e.query(anon, `SELECT a.has_valid_kyc FROM public.artist_profiles a WHERE id = $1`, []any{w.artist2}, &valid2); err != nil {
		t.Fatal(err)
	}
	if !valid1 || valid2 {
		t.Errorf("has_valid_kyc %v %v", valid1, valid2)
	}
	if got := scalar[time.Time](e, `SELECT kyc_expiry_date FROM public.artist_profiles WHERE id = $1`, w.artist); !got.Equal(expiry) {
		t.Errorf("expiry %v, want %v", got, expiry)
	}
	msgs := scalar[string](e, `SELECT string_agg(message, ' | ' ORDER BY message) FROM public.notifications WHERE title LIKE 'KYC%'`)
	if want := "Your identity verification was approved until 15 Mar " + expiry.Format("2006") + ". | Your identity verification was rejected: Document is unreadable"; msgs != want {
		t.Errorf("notifications %q\nwant %q", msgs, want)
	}
	if a, r := e.auditRows("kyc.approve"), e.auditRows("kyc.reject"); len(a) != 1 || len(r) != 1 ||
		a[0]["after"].(map[string]any)["kyc_status"] != "approved" || r[0]["reason"] != "Document is unreadable" {
		t.Errorf("audit %v %v", a, r)
	}
	if done := e.mustRows(admin, `SELECT * FROM public.admin_list_kyc(NULL)`); len(done) != 2 || done[0]["reviewed_by_name"] == nil {
		t.Errorf("all submissions %v", done)
	}
}

// TestAdminVerificationsAndStatus: paid verifications are listed with their
// payment; system status reports the database, migrations and queues.
func TestAdminVerificationsAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	admin := user(w.admin)
	pay := e.mustJSON(user(w.artist), `SELECT public.create_payment('sandbox', 'verification')::text`)
	if _, err := e.serviceJSON(`SELECT public.complete_payment('sandbox', $1, $2, $3, 'successful')::text`, pay["tx_ref"], w.artist, pay["total"]); err != nil {
		t.Fatal(err)
	}
	e.mustJSON(user(w.sponsor), `SELECT public.create_payment('sandbox', 'topup', 5000)::text`)

	list := e.mustRows(admin, `SELECT * FROM public.admin_list_verifications()`)
	if len(list) != 1 || list[0]["user_id"] != w.artist || list[0]["tx_ref"] != pay["tx_ref"] || list[0]["active"] != true ||
		list[0]["total"] != pay["total"] {
		t.Errorf("verifications %v", list)
	}

	st := e.mustJSON(admin, `SELECT public.admin_system_status()::text`)
	db := st["database"].(map[string]any)
	if db["up"] != true || db["size_bytes"].(float64) <= 0 || db["version"] == "" {
		t.Errorf("database %v", db)
	}
	app := st["migrations"].(map[string]any)["app"].(map[string]any)
	if want := scalar[string](e, `SELECT max(version) FROM basalt.schema_migrations WHERE source = 'app'`); app["version"] != want {
		t.Errorf("app migration %v, want %s", app, want)
	}
	if n := st["payments_pending"].(map[string]any)["count"]; n != 1.0 {
		t.Errorf("pending payments %v", n)
	}
	if _, ok := st["replication_slots"].([]any); !ok {
		t.Errorf("replication slots %v", st["replication_slots"])
	}
}
