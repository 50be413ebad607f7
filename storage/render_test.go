package storage_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/storage"
)

// testPNG is a w×h image with a gradient, so resizing has real work.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRenderImage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "fs")
	e.bucket("pics", false)
	e.bucket("pub", true)
	src := testPNG(t, 400, 300)
	e.put(e.service, "pics", "a.png", "image/png", src, false)
	e.put(e.service, "pub", "a.png", "image/png", src, false)
	e.put(e.service, "pics", "notes.txt", "text/plain", []byte("not an image"), false)

	tests := []struct {
		name          string
		path          string
		token         string
		width, height int
		header        string
	}{
		{"cover crops to the box", "/render/image/authenticated/pics/a.png?width=200&height=200", e.service, 200, 200,
			"height:200,width:200,resizing_type:fill"},
		{"contain fits inside", "/render/image/authenticated/pics/a.png?width=200&height=200&resize=contain", e.service, 200, 150,
			"height:200,width:200,resizing_type:fit"},
		{"fill stretches", "/render/image/authenticated/pics/a.png?width=100&height=300&resize=fill", e.service, 100, 300,
			"height:300,width:100,resizing_type:force"},
		{"one side keeps the ratio", "/render/image/public/pub/a.png?width=100", "", 100, 75, "width:100,resizing_type:fill"},
		{"too wide is clamped", "/render/image/public/pub/a.png?width=99999&height=10&resize=fill", "", 2500, 10,
			"height:10,width:2500,resizing_type:force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.do(req{method: "GET", path: tt.path, token: tt.token})
			if rec.Code != 200 {
				t.Fatalf("render = %d %s", rec.Code, rec.Body)
			}
			img, err := png.Decode(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tt.width || b.Dy() != tt.height {
				t.Errorf("size = %dx%d, want %dx%d", b.Dx(), b.Dy(), tt.width, tt.height)
			}
			if got := rec.Header().Get("X-Transformations"); got != tt.header {
				t.Errorf("X-Transformations = %q, want %q", got, tt.header)
			}
		})
	}

	// A signed transformed URL carries the transformation in its token.
	got := e.ok(req{method: "POST", path: "/object/sign/pics/a.png", token: e.service,
		json: map[string]any{"expiresIn": 60, "transform": map[string]any{"width": 200, "height": 200, "resize": "cover", "quality": 60}}})
	signed := got["signedURL"].(string)
	if !strings.HasPrefix(signed, "/render/image/sign/pics/a.png?token=") {
		t.Fatalf("signedURL = %s", signed)
	}
	rec := e.do(req{method: "GET", path: signed + "&width=5"})
	if rec.Code != 200 || rec.Header().Get("X-Transformations") != "height:200,width:200,resizing_type:fill,quality:60" {
		t.Errorf("signed render = %d %v", rec.Code, rec.Header())
	}

	wantErr(t, e.do(req{method: "GET", path: "/render/image/public/pics/a.png?width=10"}), 400, "404", "NoSuchBucket", "Bucket not found")
	wantErr(t, e.do(req{method: "GET", path: "/render/image/authenticated/pics/notes.txt?width=10", token: e.service}),
		400, "400", "InvalidRequest", "Invalid source image")
	wantErr(t, e.do(req{method: "GET", path: "/render/image/authenticated/pics/a.png?quality=5", token: e.service}),
		400, "400", "InvalidRequest", "querystring/quality must be >= 20 and <= 100")

	// Size caps: bytes and decoded pixels.
	capped := newEnv(t, "fs", func(c *storage.Config) { c.ImageMaxPixels = 100 * 100 })
	capped.bucket("pub", true)
	capped.put(capped.service, "pub", "a.png", "image/png", src, false)
	wantErr(t, capped.do(req{method: "GET", path: "/render/image/public/pub/a.png?width=10"}), 400, "413", "EntityTooLarge",
		"The image exceeded the maximum allowed dimensions for image transformation")

	// With transforms off the routes do not exist, and signing ignores transform.
	off := newEnv(t, "fs", func(c *storage.Config) { c.ImageTransform = false })
	off.bucket("pub", true)
	off.put(off.service, "pub", "a.png", "image/png", src, false)
	wantErr(t, off.do(req{method: "GET", path: "/render/image/public/pub/a.png?width=10"}), 404, "404", "InvalidRequest",
		"Route GET:/render/image/public/pub/a.png?width=10 not found")
	got = off.ok(req{method: "POST", path: "/object/sign/pub/a.png", token: off.service,
		json: map[string]any{"expiresIn": 60, "transform": map[string]any{"width": 20}}})
	if s := got["signedURL"].(string); !strings.HasPrefix(s, "/object/sign/pub/a.png?token=") {
		t.Errorf("signedURL with transforms off = %s", s)
	}
}
