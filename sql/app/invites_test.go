package app_test

import "testing"

// TestInviteNamesItsTrack: an invite is for one unsponsored track of the
// artist's, written to the table directly as the app does; accepting it
// sponsors exactly that track.
func TestInviteNamesItsTrack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	song := func(artist, title string) string {
		return scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration) VALUES ($1, $2, 200) RETURNING id::text`, title, artist)
	}
	first, second := song(w.artist2, "First"), song(w.artist2, "Second")
	hidden := song(w.artist2, "Hidden")
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, hidden)
	const insert = `INSERT INTO public.sponsor_artist_invites (artist_id, sponsor_id, track_id, pitch) VALUES ($1, $2, $3, 'Pitch') RETURNING id::text`
	invites := func() int64 { return scalar[int64](e, `SELECT count(*) FROM public.sponsor_artist_invites`) }
	before := invites()

	for _, tc := range []struct {
		name              string
		who               caller
		artist, sponsor   string
		track             any
		wantState, wanted string
	}{
		{"a sponsor's invite without a track", user(w.sponsor), w.artist2, w.sponsor, nil, "P0001", "Choose the track this invitation is for"},
		{"an artist's pitch without a track", user(w.artist2), w.artist2, w.sponsor, nil, "P0001", "Choose the track this invitation is for"},
		{"another artist's track", user(w.sponsor), w.artist2, w.sponsor, w.plainTrack, "P0001", "Track not found"},
		{"a track sponsored by another sponsor", user(w.sponsor2), w.artist, w.sponsor2, w.track, "P0001", "Track is already sponsored"},
		{"a track the sponsor already sponsors", user(w.sponsor), w.artist, w.sponsor, w.track, "P0001", "Track is already sponsored"},
		{"a hidden track", user(w.sponsor), w.artist2, w.sponsor, hidden, "P0001", "Track not found"},
		{"an unknown track", user(w.sponsor), w.artist2, w.sponsor, "00000000-0000-4000-8000-000000000000", "P0001", "Track not found"},
		// The wrong user, with a track that would do.
		{"a sponsor in another sponsor's name", user(w.sponsor), w.artist2, w.sponsor2, first, denied, ""},
		{"an artist pitching another artist's track", user(w.artist), w.artist2, w.sponsor, first, denied, ""},
		{"a fan", user(w.fan), w.artist2, w.sponsor, first, denied, ""},
		{"a visitor", anon, w.artist2, w.sponsor, first, denied, ""},
	} {
		_, err := e.try(tc.who, insert, tc.artist, tc.sponsor, tc.track)
		if sqlState(err) != tc.wantState || (tc.wanted != "" && sqlMessage(err) != tc.wanted) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.wantState, tc.wanted)
		}
	}
	if n := invites(); n != before {
		t.Fatalf("%d refused invites stored", n-before)
	}

	// A sponsor's invite for the first track: accepting it sponsors that
	// track alone, whatever else the artist has.
	var invite string
	if err := e.query(user(w.sponsor), insert, []any{w.artist2, w.sponsor, first}, &invite); err != nil {
		t.Fatal(err)
	}
	if _, err := e.callJSON(user(w.artist2), `SELECT public.respond_to_invite($1, true)::text`, invite); err != nil {
		t.Fatal(err)
	}
	got := scalar[string](e, `SELECT string_agg(title || ':' || is_sponsored || ':' || coalesce(sponsor_id::text, '-'), ' ' ORDER BY title)
		FROM public.tracks WHERE artist_id = $1`, w.artist2)
	if want := "First:true:" + w.sponsor + " Hidden:false:- Second:false:-"; got != want {
		t.Errorf("tracks after acceptance = %q, want %q", got, want)
	}
	// The second track can still be sponsored, by another sponsor.
	if err := e.query(user(w.sponsor2), insert, []any{w.artist2, w.sponsor2, second}, new(string)); err != nil {
		t.Errorf("invite for the other track: %v", err)
	}
}
