package storage

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decode WebP sources
)

// maxDimension clamps requested widths and heights, like the reference's
// imgproxy limit.
const maxDimension = 2500

// transform is an image transformation request (query or signed claim).
type transform struct {
	Width   int    `json:"width,omitempty"`
	Height  int    `json:"height,omitempty"`
	Resize  string `json:"resize,omitempty"`  // cover (default), contain, fill
	Quality int    `json:"quality,omitempty"` // 20-100
	Format  string `json:"format,omitempty"`  // origin, avif, webp
}

func (t *transform) empty() bool {
	return t == nil || (t.Width == 0 && t.Height == 0 && t.Resize == "" && t.Quality == 0 && t.Format == "")
}

// claim is the transformations claim of a signed render URL.
func (t *transform) claim() string {
	var parts []string
	if t.Height > 0 {
		parts = append(parts, "height:"+strconv.Itoa(t.Height))
	}
	if t.Width > 0 {
		parts = append(parts, "width:"+strconv.Itoa(t.Width))
	}
	if t.Resize != "" {
		parts = append(parts, "resize:"+t.Resize)
	}
	if t.Quality > 0 {
		parts = append(parts, "quality:"+strconv.Itoa(t.Quality))
	}
	if t.Format != "" {
		parts = append(parts, "format:"+t.Format)
	}
	return strings.Join(parts, ",")
}

// parseTransform reads "key:value,..." (claims) or query parameters.
func parseTransform(get func(string) string) (transform, error) {
	var t transform
	var err error
	for _, f := range []struct {
		name string
		dst  *int
	}{{"width", &t.Width}, {"height", &t.Height}, {"quality", &t.Quality}} {
		v := get(f.name)
		if v == "" {
			continue
		}
		if *f.dst, err = strconv.Atoi(v); err != nil || *f.dst < 0 {
			return t, errSchema(fmt.Sprintf("querystring/%s must be integer", f.name))
		}
	}
	t.Width, t.Height = min(t.Width, maxDimension), min(t.Height, maxDimension)
	if t.Quality != 0 && (t.Quality < 20 || t.Quality > 100) {
		return t, errSchema("querystring/quality must be >= 20 and <= 100")
	}
	t.Resize = get("resize")
	switch t.Resize {
	case "", "cover", "contain", "fill":
	default:
		return t, errSchema("querystring/resize must be equal to one of the allowed values")
	}
	t.Format = get("format")
	switch t.Format {
	case "", "origin", "avif", "webp":
	default:
		return t, errSchema("querystring/format must be equal to one of the allowed values")
	}
	return t, nil
}

func claimGetter(claim string) func(string) string {
	m := map[string]string{}
	for _, p := range strings.Split(claim, ",") {
		if k, v, ok := strings.Cut(p, ":"); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

// header is the X-Transformations value, in imgproxy's vocabulary.
func (t transform) header() string {
	var parts []string
	if t.Height > 0 {
		parts = append(parts, "height:"+strconv.Itoa(t.Height))
	}
	if t.Width > 0 {
		parts = append(parts, "width:"+strconv.Itoa(t.Width))
	}
	if t.Width > 0 || t.Height > 0 {
		rt := map[string]string{"": "fill", "cover": "fill", "contain": "fit", "fill": "force"}[t.Resize]
		parts = append(parts, "resizing_type:"+rt)
	}
	if t.Quality > 0 {
		parts = append(parts, "quality:"+strconv.Itoa(t.Quality))
	}
	return strings.Join(parts, ",")
}

// renderAuthenticated answers /render/image/authenticated/...: RLS like a
// download.
func (s *Service) renderAuthenticated(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	t, err := parseTransform(r.URL.Query().Get)
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	o, err := s.readObject(r, c, b, param(r, "path"), false)
	if err != nil {
		return err
	}
	return s.renderObject(w, r, o, t, nil)
}

// renderPublic answers /render/image/public/...
func (s *Service) renderPublic(w http.ResponseWriter, r *http.Request) error {
	t, err := parseTransform(r.URL.Query().Get)
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	if !b.Public {
		return errNoSuchBucket()
	}
	o, err := s.readObject(r, caller{}, b, param(r, "path"), true)
	if err != nil {
		return err
	}
	return s.renderObject(w, r, o, t, nil)
}

// renderSigned answers /render/image/sign/...?token=: the token's
// transformations claim applies, not the query.
func (s *Service) renderSigned(w http.ResponseWriter, r *http.Request) error {
	bucketID, name := param(r, "bucket"), param(r, "path")
	m, exp, err := s.verifyToken(r.URL.Query().Get("token"), bucketID, name, "download")
	if err != nil {
		return err
	}
	claim, _ := m["transformations"].(string)
	t, err := parseTransform(claimGetter(claim))
	if err != nil {
		return err
	}
	o, err := s.adminObject(r, bucketID, name)
	if err != nil {
		return err
	}
	return s.renderObject(w, r, o, t, &serveOpts{expires: exp})
}

// renderObject decodes o (within the size caps), transforms it and writes
// the result in the source's format (pure Go has no WebP/AVIF encoder, and
// the contract allows keeping the original format).
func (s *Service) renderObject(w http.ResponseWriter, r *http.Request, o object, t transform, opts *serveOpts) error {
	m := o.meta()
	// Decoding is CPU- and memory-heavy (up to 4 bytes per pixel): at most
	// one render per CPU runs at once, the rest wait their turn.
	select {
	case s.renders <- struct{}{}:
		defer func() { <-s.renders }()
	case <-r.Context().Done():
		return r.Context().Err()
	}
	if m.Size > s.cfg.ImageMaxBytes {
		return &Error{Status: 413, Code: "EntityTooLarge", Label: "Payload too large",
			Message: "The object exceeded the maximum allowed size for image transformation"}
	}
	body, err := s.backend.Get(r.Context(), o.key(), 0, -1)
	if errors.Is(err, ErrNotExist) {
		return errMissingBytes()
	}
	if err != nil {
		return errInternal(fmt.Errorf("open %s: %w", o.key(), err))
	}
	defer body.Close()
	// The source is read whole (decoders need random access) but never more
	// than the cap; the pixel count is checked from the header before the
	// full decode allocates anything.
	src, err := io.ReadAll(io.LimitReader(body, s.cfg.ImageMaxBytes+1))
	if err != nil {
		return errInternal(fmt.Errorf("read %s: %w", o.key(), err))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return errInvalid("Invalid source image")
	}
	if int64(cfg.Width)*int64(cfg.Height) > s.cfg.ImageMaxPixels {
		return &Error{Status: 413, Code: "EntityTooLarge", Label: "Payload too large",
			Message: "The image exceeded the maximum allowed dimensions for image transformation"}
	}
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		return errInvalid("Invalid source image")
	}
	out := resize(img, t)
	var buf bytes.Buffer
	ct := "image/" + format
	q := t.Quality
	if q == 0 {
		q = 80
	}
	switch format {
	case "jpeg":
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: q})
	case "gif":
		err = gif.Encode(&buf, out, nil)
	default:
		ct = "image/png" // png, and webp sources (no pure-Go WebP encoder)
		err = png.Encode(&buf, out)
	}
	if err != nil {
		return errInternal(fmt.Errorf("encode %s: %w", o.key(), err))
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	if opts != nil && !opts.expires.IsZero() {
		h.Set("Expires", opts.expires.UTC().Format(http.TimeFormat))
	} else {
		h.Set("Cache-Control", m.CacheControl)
	}
	h.Set("X-Transformations", t.header())
	h.Set("X-Robots-Tag", "none")
	if v, ok := r.URL.Query()["download"]; ok {
		h.Set("Content-Disposition", contentDisposition(v[0]))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// resize applies imgproxy's resizing types: cover crops to fill the box,
// contain fits inside it, fill stretches. A single dimension keeps the
// aspect ratio.
func resize(src image.Image, t transform) image.Image {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	tw, th := t.Width, t.Height
	if (tw == 0 && th == 0) || sw == 0 || sh == 0 {
		return src
	}
	if tw == 0 {
		tw = max(1, sw*th/sh)
	}
	if th == 0 {
		th = max(1, sh*tw/sw)
	}
	srcRect := sb
	dw, dh := tw, th
	switch t.Resize {
	case "contain":
		if sw*th > sh*tw { // wider than the box
			dh = max(1, sh*tw/sw)
		} else {
			dw = max(1, sw*th/sh)
		}
	case "fill":
	default: // cover: crop the source to the box's aspect ratio, centred
		if sw*th > sh*tw {
			cw := sh * tw / th
			x0 := sb.Min.X + (sw-cw)/2
			srcRect = image.Rect(x0, sb.Min.Y, x0+cw, sb.Max.Y)
		} else {
			ch := sw * th / tw
			y0 := sb.Min.Y + (sh-ch)/2
			srcRect = image.Rect(sb.Min.X, y0, sb.Max.X, y0+ch)
		}
	}
	// Bilinear is a fraction of CatmullRom's cost and fine for thumbnails
	// and cover art, which is what storage transforms serve.
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, srcRect, draw.Over, nil)
	return dst
}
