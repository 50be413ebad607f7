package main

// benchCase is one admin list (or detail) and the plain indexed read it is
// compared with: a page of the same size from the same table, by the index
// the list walks, as the owner without RLS.
type benchCase struct {
	name       string
	fn         string // the candidate's label
	sql        string
	args       []any
	base       string
	baseArgs   []any
	mayBeEmpty bool
	notAList   bool // a whole-table check, not held to the page goal
}

func cases(midUser, midStream, midTx [2]any, streamKey, heavySponsor, busyTrack, fan string) []benchCase {
	const page = ` LIMIT 50`
	profiles := `SELECT * FROM public.public_profiles ORDER BY created_at DESC, id DESC` + page
	streams := `SELECT * FROM public.streams ORDER BY created_at DESC, id DESC` + page
	ledger := `SELECT * FROM public.transactions ORDER BY created_at DESC, id DESC` + page
	return []benchCase{
		{name: "users, first page", fn: "admin_search_users", sql: `SELECT * FROM public.admin_search_users()`, base: profiles},
		{name: "users, deep page", fn: "admin_search_users", sql: `SELECT * FROM public.admin_search_users(p_before_created => $1, p_before_id => $2)`,
			args: midUser[:], base: `SELECT * FROM public.public_profiles WHERE (created_at, id) < ($1, $2) ORDER BY created_at DESC, id DESC` + page, baseArgs: midUser[:]},
		{name: "users, search", fn: "admin_search_users", sql: `SELECT * FROM public.admin_search_users('user1234')`,
			base: `SELECT * FROM public.public_profiles WHERE lower(username) = 'user1234'`},
		{name: "users, broad search", fn: "admin_search_users", sql: `SELECT * FROM public.admin_search_users('bench.example')`, base: profiles},
		{name: "users, role and suspended", fn: "admin_search_users", sql: `SELECT * FROM public.admin_search_users(p_role => 'fan', p_suspended => true)`,
			base: `SELECT * FROM public.public_profiles WHERE is_suspended ORDER BY created_at DESC, id DESC` + page},
		{name: "activity, everything", fn: "admin_activity", sql: `SELECT * FROM public.admin_activity()`, base: streams},
		{name: "activity, deep page", fn: "admin_activity", sql: `SELECT * FROM public.admin_activity(p_before_at => $1, p_before_key => $2)`,
			args: []any{midStream[0], streamKey}, base: `SELECT * FROM public.streams WHERE (created_at, id) < ($1, $2::uuid) ORDER BY created_at DESC, id DESC` + page, baseArgs: midStream[:]},
		{name: "activity, rejected streams", fn: "admin_activity", sql: `SELECT * FROM public.admin_activity('stream_rejected')`,
			base: `SELECT * FROM public.streams WHERE NOT is_valid ORDER BY created_at DESC, id DESC` + page},
		{name: "activity, sign-ups", fn: "admin_activity", sql: `SELECT * FROM public.admin_activity('signup')`,
			base: `SELECT * FROM public.activity_log ORDER BY created_at DESC, id DESC` + page},
		{name: "activity, one user", fn: "admin_activity", sql: `SELECT * FROM public.admin_activity(p_user_id => $1)`, args: []any{fan},
			base: `SELECT * FROM public.streams WHERE user_id = $1 ORDER BY created_at DESC` + page, baseArgs: []any{fan}},
		{name: "tracks, first page", fn: "admin_search_tracks", sql: `SELECT * FROM public.admin_search_tracks()`,
			base: `SELECT * FROM public.tracks ORDER BY created_at DESC, id DESC` + page},
		{name: "tracks, title search", fn: "admin_search_tracks", sql: `SELECT * FROM public.admin_search_tracks('track 123')`,
			base: `SELECT * FROM public.tracks WHERE id = $1`, baseArgs: []any{busyTrack}},
		{name: "cash-outs, pending queue", fn: "admin_list_cashouts", sql: `SELECT * FROM public.admin_list_cashouts()`,
			base: `SELECT * FROM public.cashout_requests WHERE status = 'pending' ORDER BY created_at, id` + page},
		{name: "ledger, first page", fn: "admin_list_transactions", sql: `SELECT * FROM public.admin_list_transactions()`, base: ledger},
		{name: "ledger, deep page", fn: "admin_list_transactions", sql: `SELECT * FROM public.admin_list_transactions(p_before_created => $1, p_before_id => $2)`,
			args: midTx[:], base: `SELECT * FROM public.transactions WHERE (created_at, id) < ($1, $2) ORDER BY created_at DESC, id DESC` + page, baseArgs: midTx[:]},
		{name: "ledger, busiest sponsor", fn: "admin_list_transactions", sql: `SELECT * FROM public.admin_list_transactions(p_user_id => $1)`, args: []any{heavySponsor},
			base: `SELECT * FROM public.transactions WHERE from_wallet = $1 ORDER BY created_at DESC, id DESC` + page, baseArgs: []any{heavySponsor}},
		{name: "ledger, one kind", fn: "admin_list_transactions", sql: `SELECT * FROM public.admin_list_transactions(p_kind => 'topup')`,
			base: `SELECT * FROM public.transactions WHERE kind = 'topup' ORDER BY created_at DESC, id DESC` + page},
		{name: "sponsored tracks", fn: "admin_list_sponsored_tracks", sql: `SELECT * FROM public.admin_list_sponsored_tracks()`,
			base: `SELECT * FROM public.tracks WHERE is_sponsored ORDER BY created_at DESC, id DESC` + page},
		{name: "invites", fn: "admin_list_invites", sql: `SELECT * FROM public.admin_list_invites()`,
			base: `SELECT * FROM public.sponsor_artist_invites ORDER BY created_at DESC, id DESC` + page},
		{name: "KYC queue", fn: "admin_list_kyc", sql: `SELECT * FROM public.admin_list_kyc()`,
			base: `SELECT * FROM public.kyc_submissions WHERE status = 'pending' ORDER BY created_at, id` + page},
		{name: "paid verifications", fn: "admin_list_verifications", sql: `SELECT * FROM public.admin_list_verifications()`,
			base: `SELECT * FROM public.verifications ORDER BY granted_at DESC, id DESC` + page},
		{name: "user detail", fn: "admin_user_detail", sql: `SELECT public.admin_user_detail($1)`, args: []any{fan},
			base: `SELECT * FROM public.public_profiles WHERE id = $1`, baseArgs: []any{fan}},
		{name: "track detail, busiest", fn: "admin_track_detail", sql: `SELECT public.admin_track_detail($1)`, args: []any{busyTrack},
			base: `SELECT * FROM public.tracks WHERE id = $1`, baseArgs: []any{busyTrack}},
		{name: "system status", fn: "admin_system_status", sql: `SELECT public.admin_system_status()`, base: `SELECT 1`},
		{name: "ledger check on load", fn: "admin_ledger_summary", sql: `SELECT public.admin_ledger_summary()`,
			base: `SELECT * FROM public.wallets WHERE account IS NOT NULL`},
		{name: "ledger full recheck (whole tables)", fn: "admin_ledger_recheck", sql: `SELECT public.admin_ledger_recheck()`,
			base: `SELECT count(*) FROM public.transactions`, notAList: true},
	}
}
