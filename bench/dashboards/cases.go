package main

import (
	"encoding/json"
	"time"
)

// benchCase is one RPC of a dashboard as the app sends it to /rest/v1,
// made as the user named by as, and the plain indexed read it is compared
// with: a page of that user's own rows along an index, as the owner without
// RLS ($1 is the user's id).
type benchCase struct {
	name string
	as   string
	fn   string // POST /rpc/<fn>
	body any    // its JSON arguments
	base string
}

// cases are the calls of frontend/src/features/dashboards/api/dashboards.ts
// and features/wallet/api/wallet.ts as supabase-js sends them, with the
// statement ranges the app picks by default (features/wallet/lib/statement.ts:
// 30 days, 12 weeks, 12 months up to today), the sponsor's 7- and 30-day
// charts, and the first page (ten rows, with the count) of the wallet
// history.
func cases(who subjects, now time.Time) []benchCase {
	credits := `SELECT * FROM public.transactions WHERE to_wallet = $1 ORDER BY created_at DESC, id DESC LIMIT 50`
	payments := `SELECT * FROM public.transactions WHERE from_wallet = $1 ORDER BY created_at DESC, id DESC LIMIT 50`
	listens := `SELECT * FROM public.streams WHERE user_id = $1 ORDER BY created_at DESC LIMIT 10`
	today := lagosDay(now)
	statement := func(period string, from time.Time) map[string]string {
		return map[string]string{"p_period": period, "p_from": day(from), "p_to": day(today)}
	}
	// The wallet's history page: its first page of ten.
	history := map[string]int{"p_offset": 0, "p_limit": 10}
	rpc := func(name, as string, body any, base string) benchCase {
		return benchCase{as: as, fn: name, body: body, base: base}
	}
	named := func(name string, c benchCase) benchCase { c.name = name; return c }
	return []benchCase{
		named("artist statement, 30 days by day", rpc("get_earnings_statement", who.artist, statement("day", today.AddDate(0, 0, -29)), credits)),
		named("artist statement, 12 weeks", rpc("get_earnings_statement", who.artist, statement("week", today.AddDate(0, 0, -77)), credits)),
		named("artist statement, 12 months", rpc("get_earnings_statement", who.artist,
			statement("month", time.Date(today.Year(), today.Month()-11, 1, 0, 0, 0, 0, time.UTC)), credits)),
		named("artist dashboard", rpc("get_artist_dashboard", who.artist, map[string]any{}, credits)),
		named("artist wallet history", rpc("get_wallet_history", who.artist, history, credits)),
		named("sponsor analytics, 7 days", rpc("get_sponsor_analytics", who.sponsor, map[string]int{"p_days": 7}, payments)),
		named("sponsor analytics, 30 days", rpc("get_sponsor_analytics", who.sponsor, map[string]int{"p_days": 30}, payments)),
		named("sponsor dashboard", rpc("get_sponsor_dashboard", who.sponsor, map[string]any{}, payments)),
		named("sponsor wallet history", rpc("get_wallet_history", who.sponsor, history, payments)),
		named("fan dashboard (history, week, top artists)", rpc("get_fan_dashboard", who.fan, map[string]any{}, listens)),
	}
}

// bodyOf is the request body of c.
func (c benchCase) bodyOf() []byte {
	b, _ := json.Marshal(c.body)
	return b
}

// lagosDay is today's date in Nigeria (UTC+1 all year), as midnight UTC.
func lagosDay(now time.Time) time.Time {
	t := now.UTC().Add(time.Hour)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func day(t time.Time) string { return t.Format(time.DateOnly) }
