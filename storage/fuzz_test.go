package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"

	"strings"
	"testing"
	"time"
)

// Fuzz targets for what storage parses from requests. Each asserts what the
// parser promises (bounds, round trips, exact arithmetic), not only that it
// does not panic. Run one with: go test ./storage -run '^$' -fuzz '^FuzzName$'.

// digitsRE is a plain decimal numeral (Upload-Length, Upload-Offset and
// Range positions are read by httpx.ParseDigits, fuzzed there).
var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// FuzzParseTusMetadata: Upload-Metadata. Keys are never empty and never
// contain the separators; a pair appended to any header is read back as
// written (the last pair for a key wins); the parsed map survives being
// encoded and parsed again.
func FuzzParseTusMetadata(f *testing.F) {
	f.Add("bucketName YXVkaW8=,objectName c29uZy5tcDM=", "contentType", []byte("audio/mpeg"))
	f.Add("", "k", []byte(""))
	f.Add("a,b ,c !!!,  d   ZA==  ,e Zg", "metadata", []byte(`{"a":1}`))
	f.Add("x\tYQ==, ,,", "x", []byte{0, 0xff, ','})
	f.Fuzz(func(t *testing.T, h, key string, value []byte) {
		m := parseTusMetadata(h)
		for k := range m {
			if k == "" || strings.ContainsAny(k, ", ") {
				t.Fatalf("parseTusMetadata(%q): key %q", h, k)
			}
		}
		if again := parseTusMetadata(encodeTusMetadata(m)); !equalMaps(m, again) {
			t.Fatalf("parseTusMetadata(%q) = %q, encoded and parsed again %q", h, m, again)
		}
		if key == "" || strings.ContainsAny(key, ", ") || strings.TrimSpace(key) != key {
			return
		}
		withPair := h + "," + key + " " + base64.StdEncoding.EncodeToString(value)
		if got, ok := parseTusMetadata(withPair)[key]; !ok || got != string(value) {
			t.Fatalf("parseTusMetadata(%q)[%q] = %q %v, want %q", withPair, key, got, ok, value)
		}
	})
}

func encodeTusMetadata(m map[string]string) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, k+" "+base64.StdEncoding.EncodeToString([]byte(v)))
	}
	return strings.Join(parts, ",")
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// FuzzReadUploadMultipart: a well-formed multipart upload as supabase-js
// sends it (fields, then the file). The fields decide the upload's
// metadata, invalid metadata JSON is the only refusal, and the body read
// back is exactly the file.
func FuzzReadUploadMultipart(f *testing.F) {
	f.Add("", "", "", "text/plain", []byte("hello"))
	f.Add("image/png", "3600", `{"owner":"me"}`, "", []byte{0, 1, 2})
	f.Add("audio/mpeg", "60", "{bad", "audio/mpeg", []byte(strings.Repeat("x", 5000)))
	f.Add("a\r\nb", "\r\n--", "null", "x/y", []byte("--boundary\r\n"))
	f.Fuzz(func(t *testing.T, contentType, cacheControl, metadata, partType string, file []byte) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for _, kv := range [][2]string{{"cacheControl", cacheControl}, {"contentType", contentType}, {"metadata", metadata}} {
			if kv[1] != "" {
				if err := mw.WriteField(kv[0], kv[1]); err != nil {
					t.Fatal(err)
				}
			}
		}
		// A file part is one with a file name or a Content-Type.
		partType = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, strings.TrimSpace(partType))
		hdr := map[string][]string{"Content-Disposition": {`form-data; name=""; filename="blob"`}}
		if partType != "" {
			hdr["Content-Type"] = []string{partType}
		}
		pw, err := mw.CreatePart(hdr)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(file) //nolint:errcheck // a bytes.Buffer
		mw.Close()     //nolint:errcheck
		r := httptest.NewRequest("POST", "/object/b/k", &body)
		r.Header.Set("Content-Type", mw.FormDataContentType())

		up, err := readUpload(r)
		if metadata != "" && !json.Valid([]byte(metadata)) {
			if e := asError(err); err == nil || e.Status != 400 || e.Message != "Invalid metadata" {
				t.Fatalf("invalid metadata %q: %v", metadata, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("readUpload: %v", err)
		}
		wantType := cmpOr(contentType, partType, "application/octet-stream")
		wantCache := "no-cache"
		if cacheControl != "" {
			wantCache = "max-age=" + cacheControl
		}
		if up.mimetype != wantType || up.cacheControl != wantCache || string(up.userMeta) != metadata || up.raw {
			t.Fatalf("upload %+v, want type %q cache %q metadata %q", up, wantType, wantCache, metadata)
		}
		got, err := io.ReadAll(up.body)
		if err != nil || !bytes.Equal(got, file) {
			t.Fatalf("file read back %d bytes (%v), want %d", len(got), err, len(file))
		}
	})
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// FuzzReadUploadBody: any body under a multipart Content-Type, and any
// headers of a plain upload. Refusals are 400s; an accepted upload has a
// type, a cache policy, metadata that is valid JSON, and a readable body.
func FuzzReadUploadBody(f *testing.F) {
	f.Add(true, "X", []byte("--X\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n60\r\n--X\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--X--\r\n"), "")
	f.Add(true, "X", []byte("--X\r\n\r\n"), "")
	f.Add(true, "", []byte(""), "")
	f.Add(false, "text/plain", []byte("plain"), base64.StdEncoding.EncodeToString([]byte(`{"a":1}`)))
	f.Add(false, "", []byte{}, "e30")
	f.Fuzz(func(t *testing.T, multi bool, typ string, body []byte, xMetadata string) {
		r := httptest.NewRequest("POST", "/object/b/k", bytes.NewReader(body))
		if multi {
			r.Header.Set("Content-Type", `multipart/form-data; boundary="`+strings.ReplaceAll(typ, `"`, "")+`"`)
		} else {
			r.Header.Set("Content-Type", typ)
			r.Header.Set("x-metadata", xMetadata)
		}
		up, err := readUpload(r)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("refusal %v, want a 400", err)
			}
			return
		}
		if up.mimetype == "" || up.cacheControl == "" || up.body == nil {
			t.Fatalf("accepted upload without type, cache policy or body: %+v", up)
		}
		if up.userMeta != nil && !json.Valid(up.userMeta) {
			t.Fatalf("metadata %q is not JSON", up.userMeta)
		}
		if _, err := io.Copy(io.Discard, up.body); err != nil && !multi {
			t.Fatalf("plain body: %v", err)
		}
	})
}

// sizeUnitRE is the grammar parseSize documents: bytes, or a decimal
// number with a unit.
var sizeUnitRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*(gb|mb|kb|b)$`)

// FuzzParseSize: a bucket's file_size_limit ("20mb", "1.5kb", "123"). The
// result is the exact value in bytes, truncated to a whole byte, and a size
// too large for int64 is refused, never wrapped to a negative limit.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"20mb", "1.5kb", "3B", "1GB", "123", " 7 mb ", "1.005kb", "0.1b",
		"9223372036854775807", "9223372036854775808", "99999999999gb", "9007199254740993b", "-1", "1e3", ""} {
		f.Add(s)
	}
	units := map[string]int64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		v := strings.ToLower(strings.TrimSpace(s))
		want := new(big.Rat)
		switch m := sizeUnitRE.FindStringSubmatch(v); {
		case digitsRE.MatchString(v):
			want.SetString(v)
		case m != nil:
			want.SetString(m[1])
			want.Mul(want, new(big.Rat).SetInt64(units[m[2]]))
		default:
			if err == nil {
				t.Fatalf("parseSize(%q) = %d, accepted outside the grammar", s, n)
			}
			return
		}
		whole := new(big.Int).Quo(want.Num(), want.Denom())
		if !whole.IsInt64() {
			if err == nil {
				t.Fatalf("parseSize(%q) = %d, want a refusal (%s bytes does not fit)", s, n, whole)
			}
			return
		}
		if err != nil || n != whole.Int64() {
			t.Fatalf("parseSize(%q) = %d %v, want %s", s, n, err, whole)
		}
	})
}

// FuzzParseTransform: image transformations from the query string or a
// signed URL's claim. Accepted values are within the documented bounds, and
// a transformation written into a signed URL's claim reads back the same.
func FuzzParseTransform(f *testing.F) {
	f.Add("width=100&height=50&resize=contain&quality=80&format=webp")
	f.Add("width=-1")
	f.Add("width=99999999999999999999&quality=19")
	f.Add("height=3000&resize=cover&format=origin")
	f.Add("quality=100&width=0&height=0")
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		tr, err := parseTransform(q.Get)
		if err != nil {
			if asError(err).Status != 400 {
				t.Fatalf("refusal %v, want a 400", err)
			}
			return
		}
		if tr.Width < 0 || tr.Width > maxDimension || tr.Height < 0 || tr.Height > maxDimension ||
			(tr.Quality != 0 && (tr.Quality < 20 || tr.Quality > 100)) {
			t.Fatalf("parseTransform(%q) = %+v out of bounds", query, tr)
		}
		switch tr.Resize {
		case "", "cover", "contain", "fill":
		default:
			t.Fatalf("parseTransform(%q): resize %q", query, tr.Resize)
		}
		switch tr.Format {
		case "", "origin", "avif", "webp":
		default:
			t.Fatalf("parseTransform(%q): format %q", query, tr.Format)
		}
		back, err := parseTransform(claimGetter(tr.claim()))
		if err != nil || back != tr {
			t.Fatalf("claim %q of %+v reads back as %+v %v", tr.claim(), tr, back, err)
		}
	})
}

// FuzzRouteMatch: the router's path grammar. A match binds every
// parameter to a non-empty value ({name} to one segment), and putting the
// values back into the pattern gives the path again.
func FuzzRouteMatch(f *testing.F) {
	for _, p := range []string{"/object/b/a/b/c.txt", "/object/b/", "/object//x", "/bucket/x", "/object/sign/b/..//x",
		"/upload/resumable/sign/abc", "/render/image/public/b/a%2Fb", "object/b/k", "/", ""} {
		f.Add(p)
	}
	routes := (&Service{cfg: Config{ImageTransform: true}}).routeTable()
	f.Fuzz(func(t *testing.T, path string) {
		for _, rt := range routes {
			params, ok := match(rt.pattern, path)
			if !ok {
				continue
			}
			segs := strings.Split(rt.pattern, "/")
			for i, s := range segs {
				name, isParam := strings.CutPrefix(s, "{")
				if !isParam {
					continue
				}
				name = strings.TrimSuffix(name, "}")
				name, rest := strings.CutSuffix(name, "...")
				v := params[name]
				if v == "" || (!rest && strings.Contains(v, "/")) {
					t.Fatalf("match(%q, %q): %s = %q", rt.pattern, path, name, v)
				}
				segs[i] = v
			}
			if got := strings.Join(segs, "/"); got != "/"+strings.TrimPrefix(path, "/") {
				t.Fatalf("match(%q, %q) = %v, which rebuilds %q", rt.pattern, path, params, got)
			}
		}
	})
}

// FuzzMimeAllowed: a bucket's allowed_mime_types. A type is allowed by
// itself and by its type/*, whatever the case and parameters, and an empty
// list allows everything.
func FuzzMimeAllowed(f *testing.F) {
	f.Add("image/png", "image/*")
	f.Add("text/plain; charset=utf-8", "TEXT/PLAIN")
	f.Add("audio/mpeg", "audio/mp3")
	f.Add("", "")
	f.Add("weird;;/;", "*/*")
	f.Fuzz(func(t *testing.T, mt, rule string) {
		if !mimeAllowed(nil, mt) {
			t.Fatalf("no rules refused %q", mt)
		}
		if !mimeAllowed([]string{mt}, mt) {
			t.Fatalf("%q is not allowed by itself", mt)
		}
		// Media types are ASCII tokens, compared without regard to case.
		if isASCII(mt) && !mimeAllowed([]string{strings.ToUpper(mt)}, strings.ToLower(mt)) {
			t.Fatalf("%q is not allowed by its upper case", mt)
		}
		base := strings.TrimSpace(strings.SplitN(mt, ";", 2)[0])
		typ, _, _ := strings.Cut(base, "/")
		if !mimeAllowed([]string{typ + "/*"}, mt) {
			t.Fatalf("%q is not allowed by %q", mt, typ+"/*")
		}
		if mimeAllowed([]string{rule}, mt) != mimeAllowed([]string{"x/never-matches", rule}, mt) {
			t.Fatalf("adding a rule changed the verdict of %q for %q", rule, mt)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzConditionalHeaders: If-None-Match and If-Range. A list that names
// the object's ETag (or *) anywhere means not modified; If-Range with the
// current ETag or with Last-Modified keeps the range.
func FuzzConditionalHeaders(f *testing.F) {
	f.Add(`"abc", W/"def"`, "abc", "")
	f.Add("*", "x", "Mon, 02 Jan 2006 15:04:05 GMT")
	f.Add(`"a"`, "a", `"a"`)
	f.Add(",,", "", "garbage")
	lm := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, list, tag, ifRange string) {
		if strings.ContainsAny(tag, `",`) {
			return
		}
		etag := `"` + tag + `"`
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("If-None-Match", list)
		notModified(r, etag, lm)
		r.Header.Set("If-Range", ifRange)
		rangeApplies(r, etag, lm)
		for _, named := range []string{list + "," + etag, etag + " ," + list, list + ", W/" + etag, list + ",*"} {
			r.Header.Set("If-None-Match", named)
			if !notModified(r, etag, lm) {
				t.Fatalf("If-None-Match %q names %s, yet the object counts as modified", named, etag)
			}
		}
		for _, keep := range []string{etag, lm.Format(http.TimeFormat), lm.Add(time.Hour).Format(http.TimeFormat)} {
			r.Header.Set("If-Range", keep)
			if !rangeApplies(r, etag, lm) {
				t.Fatalf("If-Range %q dropped the range of %s", keep, etag)
			}
		}
	})
}

// FuzzValidateKey: the names an object may get. A name is accepted exactly
// when it is not empty, is made of the reference's S3-safe characters, is
// at most maxKeyBytes long and has no "." or ".." segment; a refusal is
// the reference's InvalidKey naming it; and a ".." segment put into an
// accepted name makes it refused.
func FuzzValidateKey(f *testing.F) {
	f.Add("folder/file.txt", 0)
	f.Add("a/../b", 1)
	f.Add("..", 0)
	f.Add("./x", 2)
	f.Add("x/.", 1)
	f.Add("a..b/..c/.d/e.", 3)
	f.Add(strings.Repeat("a", 1025), 7)
	f.Add("émoji/ü", 0)
	f.Add("a//b", 2)
	f.Fuzz(func(t *testing.T, name string, at int) {
		safe := name != "" && len(name) <= maxKeyBytes
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_/!.*'() &$=@;:+,?-", c) >= 0) {
				safe = false
			}
		}
		for _, seg := range strings.Split(name, "/") {
			if seg == "." || seg == ".." {
				safe = false
			}
		}
		err := validateNewKey(name)
		if (err == nil) != safe {
			t.Fatalf("validateNewKey(%q) = %v, want accepted %v", name, err, safe)
		}
		if err != nil {
			if e := asError(err); e.httpStatus() != 400 || e.Code != "InvalidKey" || e.Message != "Invalid key: "+name {
				t.Fatalf("validateNewKey(%q) = %+v, want the reference's InvalidKey", name, e)
			}
			return
		}
		if validateKey(name) != nil {
			t.Fatalf("validateNewKey accepts %q, validateKey refuses it", name)
		}
		// Put a ".." segment at a segment boundary of the accepted name.
		segs := strings.Split(name, "/")
		i := ((at % (len(segs) + 1)) + len(segs) + 1) % (len(segs) + 1)
		dotted := strings.Join(append(append(append([]string{}, segs[:i]...), ".."), segs[i:]...), "/")
		if validateNewKey(dotted) == nil {
			t.Fatalf("validateNewKey(%q) accepts a .. segment", dotted)
		}
	})
}
