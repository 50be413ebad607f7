package app_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// rpcJSON calls a JSON-returning function as c and decodes its answer.
func rpcJSON[T any](t *testing.T, e *env, c caller, sql string, args ...any) T {
	t.Helper()
	var raw []byte
	if err := e.query(c, sql, args, &raw); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: decode %s: %v", sql, raw, err)
	}
	return v
}

type named struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title"`
}

type searchAnswer struct {
	Tracks    []named `json:"tracks"`
	Artists   []named `json:"artists"`
	Sponsors  []named `json:"sponsors"`
	Playlists []named `json:"playlists"`
	People    []named `json:"people"`
}

func names(xs []named) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.Name + x.Title
	}
	return out
}

// artistNamed signs up an artist and gives their profile a name.
func (e *env) artistNamed(name string) string {
	e.t.Helper()
	id := e.signUp("artist")
	e.exec(`UPDATE public.artist_profiles SET name = $2 WHERE id = $1`, id, name)
	return id
}

func (e *env) trackOf(artist, title string) string {
	e.t.Helper()
	return scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration, genre) VALUES ($1, $2, 180, 'Afrobeats') RETURNING id::text`, title, artist)
}

func TestSearchToleratesTyposAndAccents(t *testing.T) {
	e := newEnv(t)
	burna := e.artistNamed("Burna Boy")
	asa := e.artistNamed("Asá")
	e.artistNamed("Wizkid")
	e.trackOf(burna, "Last Last")
	e.trackOf(burna, "Ye")
	e.trackOf(burna, "Midnight in Lagos")
	e.trackOf(asa, "Jailer")
	e.trackOf(asa, "Bibanke")
	hidden := e.trackOf(asa, "Bé Mí Lọ")
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, hidden)
	sp := e.signUp("sponsor")
	e.exec(`UPDATE public.sponsor_profiles SET company_name = 'Ọ̀pẹ́ Telecom' WHERE id = $1`, sp)
	fan := e.signUp("fan")
	list := scalar[string](e, `INSERT INTO public.playlists (user_id, name, is_public) VALUES ($1, 'Lagos Nights', true) RETURNING id::text`, fan)
	e.exec(`INSERT INTO public.playlists (user_id, name) VALUES ($1, 'Lagos Secrets')`, fan)

	search := func(c caller, q string) searchAnswer {
		return rpcJSON[searchAnswer](t, e, c, `SELECT public.search_catalog($1)`, q)
	}
	visitor := caller{}
	if got := search(visitor, "Burna Boi"); len(got.Artists) == 0 || got.Artists[0].Name != "Burna Boy" {
		t.Errorf("Burna Boi: artists %v", names(got.Artists))
	} else if !slices.Contains(names(got.Tracks), "Last Last") {
		t.Errorf("Burna Boi: the artist's tracks follow, got %v", names(got.Tracks))
	}
	if got := search(visitor, "Asa"); len(got.Artists) != 1 || got.Artists[0].Name != "Asá" {
		t.Errorf("Asa: artists %v", names(got.Artists))
	}
	if got := search(visitor, "jailr"); !slices.Equal(names(got.Tracks), []string{"Jailer"}) {
		t.Errorf("jailr: tracks %v", names(got.Tracks))
	}
	if got := search(visitor, "midnite lagos"); len(got.Tracks) == 0 || got.Tracks[0].Title != "Midnight in Lagos" {
		t.Errorf("two words, one misspelt: tracks %v", names(got.Tracks))
	}
	if got := search(visitor, "las"); len(got.Tracks) == 0 || got.Tracks[0].Title != "Last Last" {
		t.Errorf("prefix las: tracks %v", names(got.Tracks))
	}
	if got := search(visitor, "be mi lo"); len(got.Tracks) != 0 {
		t.Errorf("hidden track found: %v", names(got.Tracks))
	}
	// The artist sees their own hidden track elsewhere, not in search.
	if got := search(caller{uid: asa}, "be mi lo"); len(got.Tracks) != 0 {
		t.Errorf("hidden track found by its artist: %v", names(got.Tracks))
	}
	if got := search(visitor, "ope telecom"); !slices.Equal(names(got.Sponsors), []string{"Ọ̀pẹ́ Telecom"}) {
		t.Errorf("sponsor: %v", names(got.Sponsors))
	}
	if got := search(visitor, "lagos"); !slices.Equal(names(got.Playlists), []string{"Lagos Nights"}) || got.Playlists[0].ID != list {
		t.Errorf("public playlists only: %v", names(got.Playlists))
	}
	if got := search(visitor, "a"); len(got.Tracks)+len(got.Artists)+len(got.Sponsors)+len(got.Playlists) != 0 {
		t.Errorf("one letter searches nothing: %+v", got)
	}
	if got := search(visitor, `'&|!:*()`); len(got.Tracks) != 0 {
		t.Errorf("punctuation: %+v", got)
	}
	// A suspended account leaves discovery: its profile and its tracks.
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, burna)
	if got := search(visitor, "burna"); len(got.Artists) != 0 || len(got.Tracks) != 0 {
		t.Errorf("suspended artist found: %v %v", names(got.Artists), names(got.Tracks))
	}
	e.exec(`UPDATE public.public_profiles SET is_suspended = true WHERE id = $1`, fan)
	if got := search(visitor, "lagos"); len(got.Playlists) != 0 {
		t.Errorf("suspended owner's playlist found: %v", names(got.Playlists))
	}
	// Results name the people of the tracks, for the cards.
	got := search(visitor, "jailer")
	if len(got.People) != 1 || got.People[0].ID != asa {
		t.Errorf("people %+v", got.People)
	}
}

func TestFollowingArtists(t *testing.T) {
	e := newEnv(t)
	w := e.newWorld()
	fan, fan2, artist := caller{uid: w.fan}, caller{uid: w.fan2}, caller{uid: w.artist}
	runPolicyCases(t, e, []policyCase{
		{"visitor cannot follow", caller{}, `INSERT INTO public.follows (artist_id) VALUES ($1)`, []any{w.artist}, 0, denied},
		{"nobody follows for someone else", fan, `INSERT INTO public.follows (follower_id, artist_id) VALUES ($1, $2)`, []any{w.fan2, w.artist}, 0, denied},
		{"only artists are followed", fan, `INSERT INTO public.follows (artist_id) VALUES ($1)`, []any{w.sponsor}, 0, "23503"},
		{"an artist does not follow themselves", artist, `INSERT INTO public.follows (artist_id) VALUES ($1)`, []any{w.artist}, 0, "23514"},
	})
	for _, c := range []caller{fan, fan2} {
		if _, err := e.execAs(c, `INSERT INTO public.follows (artist_id) VALUES ($1)`, w.artist); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.execAs(fan, `INSERT INTO public.follows (artist_id) VALUES ($1)`, w.artist); sqlState(err) != "23505" {
		t.Errorf("following twice: %v", err)
	}
	if n := scalar[int64](e, `SELECT follower_count FROM public.artist_profiles WHERE id = $1`, w.artist); n != 2 {
		t.Errorf("follower_count %d", n)
	}
	// The count is the database's: an artist cannot set it.
	if _, err := e.execAs(artist, `UPDATE public.artist_profiles SET follower_count = 1000 WHERE id = $1`, w.artist); err != nil {
		t.Fatal(err)
	}
	runPolicyCases(t, e, []policyCase{
		{"a fan reads their own follows", fan, `SELECT * FROM public.follows`, nil, 1, ""},
		{"the artist does not read who follows them", artist, `SELECT * FROM public.follows`, nil, 0, ""},
		{"visitors read nothing", caller{}, `SELECT * FROM public.follows`, nil, 0, denied},
		{"anyone reads the count", caller{}, `SELECT 1 FROM public.artist_profiles WHERE follower_count = 2 AND id = $1`, []any{w.artist}, 1, ""},
		{"another fan cannot unfollow for them", fan2, `DELETE FROM public.follows WHERE follower_id = $1`, []any{w.fan}, 0, ""},
	})

	// A new track notifies the followers, once each, and nobody else.
	track := scalar[string](e, `INSERT INTO public.tracks (title, artist_id, duration) VALUES ('Fresh Cut', $1, 200) RETURNING id::text`, w.artist)
	for _, who := range []string{w.fan, w.fan2} {
		var title, message, kind, tid string
		if err := e.query(caller{uid: who}, `SELECT title, message, data->>'kind', data->>'track_id' FROM public.notifications
			WHERE data->>'kind' = 'new_release'`, nil, &title, &message, &kind, &tid); err != nil {
			t.Fatalf("notice for %s: %v", who, err)
		}
		if tid != track || title == "" || message == "" {
			t.Errorf("notice %q %q %s", title, message, tid)
		}
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE data->>'kind' = 'new_release'`); n != 2 {
		t.Errorf("%d notices", n)
	}

	if n, err := e.execAs(fan, `DELETE FROM public.follows WHERE artist_id = $1`, w.artist); err != nil || n != 1 {
		t.Fatalf("unfollow: %d %v", n, err)
	}
	if n := scalar[int64](e, `SELECT follower_count FROM public.artist_profiles WHERE id = $1`, w.artist); n != 1 {
		t.Errorf("follower_count after unfollow %d", n)
	}
	e.exec(`INSERT INTO public.tracks (title, artist_id, duration, status) VALUES ('Hidden Cut', $1, 200, 'hidden')`, w.artist)
	e.exec(`INSERT INTO public.tracks (title, artist_id, duration) VALUES ('Second Cut', $1, 200)`, w.artist)
	if n := scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND data->>'kind' = 'new_release'`, w.fan); n != 1 {
		t.Errorf("an unfollowed artist still notifies: %d", n)
	}
	if n := scalar[int64](e, `SELECT count(*) FROM public.notifications WHERE user_id = $1 AND data->>'kind' = 'new_release'`, w.fan2); n != 2 {
		t.Errorf("a hidden upload notifies, or the second does not: %d", n)
	}
}

type playlistAnswer struct {
	Playlist struct {
		ID       *string `json:"id"`
		Name     string  `json:"name"`
		IsPublic bool    `json:"is_public"`
		Owner    string  `json:"owner_id"`
	} `json:"playlist"`
	Tracks []named `json:"tracks"`
}

func TestPublicPlaylistsAndLikedSongs(t *testing.T) {
	e := newEnv(t)
	w := e.newWorld()
	fan := caller{uid: w.fan}
	list := scalar[string](e, `INSERT INTO public.playlists (user_id, name) VALUES ($1, 'Road trip') RETURNING id::text`, w.fan)
	hidden := e.trackOf(w.artist, "Pulled")
	for _, tr := range []string{w.track, w.plainTrack, hidden} {
		e.exec(`INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, list, tr)
	}
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, hidden)
	get := `SELECT public.get_playlist($1)`
	if _, err := e.try(caller{}, get, list); sqlState(err) != "P0002" {
		t.Errorf("a private playlist for a visitor: %v", err)
	}
	if _, err := e.try(caller{uid: w.fan2}, get, list); sqlState(err) != "P0002" {
		t.Errorf("a private playlist for another fan: %v", err)
	}
	if _, err := e.execAs(fan, `UPDATE public.playlists SET is_public = true, description = 'For the road' WHERE id = $1`, list); err != nil {
		t.Fatal(err)
	}
	got := rpcJSON[playlistAnswer](t, e, caller{}, get, list)
	if !got.Playlist.IsPublic || got.Playlist.Name != "Road trip" || !slices.Equal(names(got.Tracks), []string{"Sponsored Song", "Plain Song"}) {
		t.Errorf("public playlist for a visitor: %+v", got)
	}
	runPolicyCases(t, e, []policyCase{
		{"another fan cannot change a public playlist", caller{uid: w.fan2}, `UPDATE public.playlists SET name = 'Mine' WHERE id = $1`, []any{list}, 0, ""},
		{"another fan cannot add to it", caller{uid: w.fan2}, `INSERT INTO public.playlist_tracks (playlist_id, track_id) VALUES ($1, $2)`, []any{list, w.track}, 0, denied},
		{"a visitor reads its tracks", caller{}, `SELECT * FROM public.playlist_tracks WHERE playlist_id = $1`, []any{list}, 3, ""},
		{"a cover is the owner's upload", fan, `UPDATE public.playlists SET cover_url = '/storage/v1/object/public/covers/x/y.jpg' WHERE id = $1`, []any{list}, 0, "P0001"},
	})
	e.exec(`INSERT INTO storage.objects (bucket_id, name, owner) VALUES ('covers', $1 || '/cover.jpg', $1::uuid)`, w.fan)
	if _, err := e.execAs(fan, `UPDATE public.playlists SET cover_url = '/storage/v1/object/public/covers/' || $2 || '/cover.jpg' WHERE id = $1`, list, w.fan); err != nil {
		t.Errorf("own cover: %v", err)
	}

	// The owner edits the description; nobody else can, nor a visitor.
	const describe = `UPDATE public.playlists SET description = $2 WHERE id = $1`
	for _, c := range []caller{{uid: w.fan2}, {uid: w.artist}, {}} {
		if n, err := e.execAs(c, describe, list, "Taken over"); n != 0 || (err != nil && sqlState(err) != "42501") {
			t.Errorf("%q changed the description: %d rows, %v", c.uid, n, err)
		}
	}
	if n, err := e.execAs(fan, describe, list, "Songs for the long road"); err != nil || n != 1 {
		t.Errorf("the owner's description: %d rows, %v", n, err)
	}
	if d := scalar[string](e, `SELECT description FROM public.playlists WHERE id = $1`, list); d != "Songs for the long road" {
		t.Errorf("description = %q", d)
	}
	// A replaced cover's file goes; the new one stays; a removed one goes too.
	coverOf := func(file string) string { return "/storage/v1/object/public/covers/" + w.fan + "/" + file }
	e.exec(`INSERT INTO storage.objects (bucket_id, name, owner) VALUES ('covers', $1 || '/cover-2.jpg', $1::uuid)`, w.fan)
	if _, err := e.execAs(fan, `UPDATE public.playlists SET cover_url = $2 WHERE id = $1`, list, coverOf("cover-2.jpg")); err != nil {
		t.Fatalf("new cover: %v", err)
	}
	covers := func() string {
		return scalar[string](e, `SELECT coalesce(string_agg(name, ',' ORDER BY name), '') FROM storage.objects WHERE bucket_id = 'covers' AND name LIKE $1 || '/%'`, w.fan)
	}
	if got := covers(); got != w.fan+"/cover-2.jpg" {
		t.Errorf("after a new cover the fan's covers are %q", got)
	}
	// A cover another of the owner's playlists shows stays.
	other := scalar[string](e, `INSERT INTO public.playlists (user_id, name, cover_url) VALUES ($1, 'Twin', $2) RETURNING id::text`, w.fan, coverOf("cover-2.jpg"))
	if _, err := e.execAs(fan, `UPDATE public.playlists SET cover_url = NULL WHERE id = $1`, list); err != nil {
		t.Fatal(err)
	}
	if got := covers(); got != w.fan+"/cover-2.jpg" {
		t.Errorf("a cover still shown by another playlist went: %q", got)
	}
	if _, err := e.execAs(fan, `DELETE FROM public.playlists WHERE id = $1`, other); err != nil {
		t.Fatal(err)
	}
	if got := covers(); got != "" {
		t.Errorf("a deleted playlist's cover stayed: %q", got)
	}

	// A cover an artist's track and playlist share stays when the track lets it go.
	e.exec(`INSERT INTO storage.objects (bucket_id, name, owner) VALUES ('covers', $1 || '/shared.jpg', $1::uuid)`, w.artist)
	shared := "/storage/v1/object/public/covers/" + w.artist + "/shared.jpg"
	e.exec(`UPDATE public.tracks SET cover_url = $2 WHERE id = $1`, w.plainTrack, shared)
	e.exec(`INSERT INTO public.playlists (user_id, name, cover_url) VALUES ($1, 'Studio picks', $2)`, w.artist, shared)
	e.exec(`UPDATE public.tracks SET cover_url = NULL WHERE id = $1`, w.plainTrack)
	if n := scalar[int64](e, `SELECT count(*) FROM storage.objects WHERE bucket_id = 'covers' AND name = $1 || '/shared.jpg'`, w.artist); n != 1 {
		t.Errorf("the playlist's cover was deleted with the track's")
	}

	// Liked songs: the caller's favorites as a playlist, newest like first.
	e.exec(`INSERT INTO public.favorites (user_id, track_id, created_at) VALUES ($1, $2, now() - interval '1 hour'), ($1, $3, now())`, w.fan, w.track, w.plainTrack)
	liked := rpcJSON[playlistAnswer](t, e, fan, `SELECT public.get_playlist()`)
	if liked.Playlist.ID != nil || liked.Playlist.Name != "Liked songs" || liked.Playlist.Owner != w.fan ||
		!slices.Equal(names(liked.Tracks), []string{"Plain Song", "Sponsored Song"}) {
		t.Errorf("liked songs %+v", liked)
	}
	if _, err := e.try(caller{}, `SELECT public.get_playlist()`); sqlState(err) != "42501" {
		t.Errorf("liked songs for a visitor: %v", err)
	}
}

func TestOpenGraphMeta(t *testing.T) {
	e := newEnv(t)
	w := e.newWorld()
	e.exec(`UPDATE public.artist_profiles SET name = 'Tems' WHERE id = $1`, w.artist)
	e.exec(`UPDATE public.tracks SET cover_url = '/storage/v1/object/public/covers/' || artist_id || '/c.jpg' WHERE id = $1`, w.track)
	list := scalar[string](e, `INSERT INTO public.playlists (user_id, name) VALUES ($1, 'Owambe') RETURNING id::text`, w.fan)
	username := scalar[string](e, `SELECT username FROM public.public_profiles WHERE id = $1`, w.artist)
	og := func(path string) map[string]string {
		var raw []byte
		if err := e.query(caller{}, `SELECT backline.og_meta($1)`, []any{path}, &raw); err != nil {
			t.Fatalf("og_meta(%s): %v", path, err)
		}
		var m map[string]string
		_ = json.Unmarshal(raw, &m)
		return m
	}
	if m := og("/track/" + w.track); m["title"] != "Sponsored Song" || m["description"] != "Song by Tems · Afrobeats on Backline" ||
		m["image"] != "/storage/v1/object/public/covers/"+w.artist+"/c.jpg" {
		t.Errorf("track %v", m)
	}
	if m := og("/profiles/" + username); m["title"] != "Tems" {
		t.Errorf("profile %v", m)
	}
	if m := og("/playlists/" + list); m != nil {
		t.Errorf("a private playlist has no preview: %v", m)
	}
	e.exec(`UPDATE public.playlists SET is_public = true WHERE id = $1`, list)
	if m := og("/playlists/" + list); m["title"] != "Owambe" || m["description"] != "Playlist by User "+scalar[string](e, `SELECT substr(display_name, 6) FROM public.public_profiles WHERE id = $1`, w.fan)+" · 0 tracks" {
		t.Errorf("public playlist %v", m)
	}
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, w.track)
	for _, p := range []string{"/track/" + w.track, "/track/not-a-uuid", "/wallet", "/profiles/nobody_here", "/profiles/a/b"} {
		if m := og(p); m != nil {
			t.Errorf("%s: %v", p, m)
		}
	}
	if _, err := e.try(caller{uid: w.fan}, `SELECT backline.og_meta('/wallet')`); sqlState(err) != "42501" {
		t.Errorf("only the app server (as a visitor) calls og_meta: %v", err)
	}
}

type homeAnswer struct {
	RecentlyPlayed struct {
		Tracks []named `json:"tracks"`
	} `json:"recently_played"`
	BecauseYouLiked *struct {
		Artist named   `json:"artist"`
		Tracks []named `json:"tracks"`
	} `json:"because_you_liked"`
	NewReleases struct {
		Tracks []named `json:"tracks"`
	} `json:"new_releases"`
	Genres []string `json:"genres"`
}

func TestListenerHome(t *testing.T) {
	e := newEnv(t)
	wiz := e.artistNamed("Wizkid")
	tems := e.artistNamed("Tems")
	rema := e.artistNamed("Rema")
	essence := e.trackOf(wiz, "Essence")
	free := e.trackOf(tems, "Free Mind")
	calm := e.trackOf(rema, "Calm Down")
	other := e.trackOf(rema, "Dumebi")
	e.exec(`UPDATE public.tracks SET genre = 'Alté' WHERE id = $1`, free)
	me, a, b := e.signUp("fan"), e.signUp("fan"), e.signUp("fan")
	// Wizkid's listeners also like Tems (two of them) and Rema's Calm Down (one).
	e.exec(`INSERT INTO public.favorites (user_id, track_id) VALUES ($1, $3), ($2, $3), ($1, $4), ($2, $4), ($1, $5)`, a, b, essence, free, calm)
	e.exec(`INSERT INTO public.streams (user_id, track_id, is_valid, duration, created_at) VALUES
		($1, $2, true, 60, now() - interval '2 hours'), ($1, $3, true, 60, now() - interval '1 hour'), ($1, $2, true, 60, now())`, me, other, essence)
	e.exec(`INSERT INTO public.favorites (user_id, track_id) VALUES ($1, $2)`, me, essence)

	if _, err := e.try(caller{}, `SELECT public.get_listener_home()`); sqlState(err) != "42501" {
		t.Errorf("visitor: %v", err)
	}
	home := rpcJSON[homeAnswer](t, e, caller{uid: me}, `SELECT public.get_listener_home()`)
	if got := names(home.RecentlyPlayed.Tracks); !slices.Equal(got, []string{"Dumebi", "Essence"}) {
		t.Errorf("recently played %v", got)
	}
	if home.BecauseYouLiked == nil || home.BecauseYouLiked.Artist.Name != "Wizkid" {
		t.Fatalf("because you liked %+v", home.BecauseYouLiked)
	}
	if got := names(home.BecauseYouLiked.Tracks); !slices.Equal(got, []string{"Free Mind", "Calm Down"}) {
		t.Errorf("because you liked Wizkid: %v", got)
	}
	if len(home.NewReleases.Tracks) != 0 {
		t.Errorf("new releases without follows: %v", names(home.NewReleases.Tracks))
	}
	if !slices.Equal(home.Genres, []string{"afrobeats", "alté"}) {
		t.Errorf("genres %v", home.Genres)
	}
	// A hidden track leaves every section.
	e.exec(`UPDATE public.tracks SET status = 'hidden' WHERE id = $1`, free)
	e.exec(`INSERT INTO public.follows (follower_id, artist_id) VALUES ($1, $2)`, me, rema)
	home = rpcJSON[homeAnswer](t, e, caller{uid: me}, `SELECT public.get_listener_home()`)
	if got := names(home.BecauseYouLiked.Tracks); !slices.Equal(got, []string{"Calm Down"}) {
		t.Errorf("because you liked, hidden left out: %v", got)
	}
	if got := names(home.NewReleases.Tracks); !slices.Equal(got, []string{"Dumebi", "Calm Down"}) {
		t.Errorf("new releases %v", got)
	}
	station := rpcJSON[struct {
		Tracks []named `json:"tracks"`
	}](t, e, caller{}, `SELECT public.get_genre_station('AFROBEATS')`)
	if len(station.Tracks) != 3 {
		t.Errorf("station %v", names(station.Tracks))
	}
}
