package app_test

import "testing"

// TestProfilePhoto: a profile photo is the user's own upload in the avatars
// bucket (images, 5 MB at most, own folder only), the same on every profile
// of the user; a replaced photo's file goes.
func TestProfilePhoto(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	limits := scalar[string](e, `SELECT public || ' ' || file_size_limit || ' ' || array_to_string(allowed_mime_types, ',') FROM storage.buckets WHERE id = 'avatars'`)
	if want := "true 5242880 image/jpeg,image/png,image/webp,image/gif"; limits != want {
		t.Errorf("avatars bucket = %q, want %q", limits, want)
	}
	url := func(owner, file string) string { return "/storage/v1/object/public/avatars/" + owner + "/" + file }
	upload := func(c caller, file string) {
		t.Helper()
		if _, err := e.execAs(c, `INSERT INTO storage.objects (bucket_id, name) VALUES ('avatars', $1)`, c.uid+"/"+file); err != nil {
			t.Fatalf("upload %s: %v", file, err)
		}
	}
	const setPhoto = `UPDATE public.public_profiles SET avatar_url = $2 WHERE id = $1`
	fan, artist := user(w.fan), user(w.artist)
	upload(fan, "me.png")
	upload(user(w.fan2), "them.png")
	e.exec(`INSERT INTO storage.objects (bucket_id, name) VALUES ('covers', $1)`, w.fan+"/cover.png")

	for _, tc := range []struct {
		name, url string
	}{
		{"another user's photo", url(w.fan2, "them.png")},
		{"a file never uploaded", url(w.fan, "ghost.png")},
		{"a picture elsewhere on the web", "https://tracker.example/pixel.gif"},
		{"an upload in another bucket", "/storage/v1/object/public/covers/" + w.fan + "/cover.png"},
		{"a path out of the folder", url(w.fan, "../"+w.fan2+"/them.png")},
	} {
		if _, err := e.try(fan, setPhoto, w.fan, tc.url); sqlMessage(err) != "Upload the photo to your own folder first" {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// The wrong user changes nobody's photo.
	if n, err := e.execAs(user(w.fan2), setPhoto, w.fan, url(w.fan2, "them.png")); err != nil || n != 0 {
		t.Errorf("another fan set the photo: %d rows, %v", n, err)
	}
	if n, err := e.execAs(fan, setPhoto, w.fan, url(w.fan, "me.png")); err != nil || n != 1 {
		t.Fatalf("own photo: %d %v", n, err)
	}
	// Replaced: the old file goes, the new one stays.
	upload(fan, "me-2.png")
	if _, err := e.execAs(fan, setPhoto, w.fan, url(w.fan, "me-2.png")); err != nil {
		t.Fatal(err)
	}
	if got := scalar[string](e, `SELECT string_agg(name, ',' ORDER BY name) FROM storage.objects WHERE bucket_id = 'avatars' AND name LIKE $1 || '/%'`, w.fan); got != w.fan+"/me-2.png" {
		t.Errorf("the fan's avatars folder holds %q", got)
	}
	// Removed: initials show again.
	if _, err := e.execAs(fan, setPhoto, w.fan, nil); err != nil {
		t.Errorf("remove the photo: %v", err)
	}

	// An artist's photo is the artist profile's too; that one is guarded the same way.
	upload(artist, "face.jpg")
	if _, err := e.execAs(artist, setPhoto, w.artist, url(w.artist, "face.jpg")); err != nil {
		t.Fatal(err)
	}
	if got := scalar[string](e, `SELECT avatar_url FROM public.artist_profiles WHERE id = $1`, w.artist); got != url(w.artist, "face.jpg") {
		t.Errorf("artist profile's photo %q", got)
	}
	if _, err := e.try(artist, `UPDATE public.artist_profiles SET avatar_url = $2 WHERE id = $1`, w.artist, url(w.fan2, "them.png")); sqlMessage(err) != "Upload the photo to your own folder first" {
		t.Errorf("artist profile set to another user's photo: %v", err)
	}
	if _, err := e.try(user(w.sponsor), `UPDATE public.sponsor_profiles SET avatar_url = 'https://tracker.example/p.gif' WHERE id = $1`, w.sponsor); sqlMessage(err) != "Upload the photo to your own folder first" {
		t.Errorf("sponsor profile set to a web picture: %v", err)
	}
	// An admin may clear anyone's photo.
	if n, err := e.execAs(user(w.admin), setPhoto, w.artist, nil); err != nil || n != 1 {
		t.Errorf("admin clears a photo: %d %v", n, err)
	}
}
