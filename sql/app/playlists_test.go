package app_test

import "testing"

// TestPlaylistRules: a playlist holds any track its owner may play, liked or
// not, once; only the owner adds to it, whatever the role; it stays bounded.
func TestPlaylistRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	create := func(c caller, name string) (string, error) {
		var id string
		err := e.query(c, `INSERT INTO public.playlists (name, user_id) VALUES ($1, $2) RETURNING id::text`, []any{name, c.uid}, &id)
		return id, err
	}
	const add = `INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`
	fan := user(w.fan)
	list, err := create(fan, "  Road trip  ")
	if err != nil {
		t.Fatal(err)
	}
	if name := scalar[string](e, `SELECT name FROM public.playlists WHERE id = $1`, list); name != "Road trip" {
		t.Errorf("name %q, want it trimmed", name)
	}
	// Neither track is liked: any track goes in.
	for _, tr := range []string{w.track, w.plainTrack} {
		if _, err := e.execAs(fan, add, list, tr); err != nil {
			t.Fatalf("add a track that is not liked: %v", err)
		}
	}
	hidden := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, status) VALUES ('Hidden', $1, 'hidden') RETURNING id::text`, w.artist)
	for _, tc := range []struct {
		name, track, state, msg string
		who                     caller
	}{
		{"the same track again", w.track, "23505", "This track is already in the playlist", fan},
		{"a hidden track", hidden, "P0001", "Track not found", fan},
		{"an unknown track", "00000000-0000-4000-8000-000000000000", "P0001", "Track not found", fan},
		// The wrong user learns nothing about the playlist, duplicates included.
		{"another fan, a new track", hidden, denied, "", user(w.fan2)},
		{"another fan, a track already in it", w.track, denied, "", user(w.fan2)},
		{"the track's artist", w.track, denied, "", user(w.artist)},
		{"an admin", w.track, denied, "", user(w.admin)},
		{"a visitor", w.track, denied, "", anon},
	} {
		_, err := e.try(tc.who, add, list, tc.track)
		if sqlState(err) != tc.state || (tc.msg != "" && sqlMessage(err) != tc.msg) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.state, tc.msg)
		}
	}
	if n, err := e.execAs(user(w.fan2), `DELETE FROM public.playlist_tracks WHERE playlist_id = $1`, list); err != nil || n != 0 {
		t.Errorf("another fan removed %d tracks (%v)", n, err)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.playlist_tracks WHERE playlist_id = $1`, list); n != 2 {
		t.Errorf("playlist holds %d tracks, want 2", n)
	}

	// Every role keeps playlists; an artist may add their own hidden track.
	for _, who := range []caller{user(w.sponsor), user(w.artist)} {
		mine, err := create(who, "Mine")
		if err != nil {
			t.Fatalf("%s creates a playlist: %v", who.uid, err)
		}
		if _, err := e.execAs(who, add, mine, w.plainTrack); err != nil {
			t.Errorf("%s adds a track: %v", who.uid, err)
		}
		if who.uid == w.artist {
			if _, err := e.execAs(who, add, mine, hidden); err != nil {
				t.Errorf("the artist adds their own hidden track: %v", err)
			}
		}
	}

	// Bounded: tracks per playlist and playlists per account.
	e.exec(`UPDATE public.app_settings SET value = '2' WHERE key IN ('playlist_max_tracks', 'playlists_per_user')`)
	extra := scalar[string](e, `INSERT INTO public.tracks (title, artist_id) VALUES ('Extra', $1) RETURNING id::text`, w.artist)
	if _, err := e.try(fan, add, list, extra); sqlMessage(err) != "A playlist holds at most 2 tracks" {
		t.Errorf("a third track: %v", err)
	}
	if _, err := create(fan, "Second"); err != nil {
		t.Fatal(err)
	}
	if _, err := create(fan, "Third"); sqlMessage(err) != "You can keep at most 2 playlists" {
		t.Errorf("a third playlist: %v", err)
	}
}
