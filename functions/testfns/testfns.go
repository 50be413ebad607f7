// Package testfns is a test-only registry: Go versions of the Deno functions
// the functions-js test suite deploys (hello, mirror, hijack, slow), so the
// suite can run against Basalt's /functions/v1. Only a binary built with
// `-tags testregistry` links them, and its `basalt dev` mounts them only
// when BASALT_FUNCTIONS_TEST_REGISTRY is set; they are never part of an
// app nor of a production build.
package testfns

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/basaltdev/basalt/functions"
)

// Origin is the origin the suite's relay runs its functions under
// (DENO_ORIGIN): the mirror reports request URLs against it.
const Origin = "http://localhost:8000"

// SlowDelay is how long the slow function takes to answer.
const SlowDelay = 3 * time.Second

// Functions returns the registry. verify_jwt is off: the suite signs its
// callers' tokens with a secret of its own, which its relay checks.
func Functions() []functions.Function {
	return []functions.Function{
		{Name: "hello", Handler: hello},
		{Name: "mirror", Handler: mirror},
		{Name: "hijack", Handler: hijack},
		{Name: "slow", Handler: slow},
	}
}

// hello answers every request with "Hello World".
func hello(w http.ResponseWriter, r *http.Request) error {
	return text(w, "Hello World")
}

// text answers as a Deno Response built from a string does.
func text(w http.ResponseWriter, s string) error {
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	_, err := io.WriteString(w, s)
	return err
}

// slow answers after SlowDelay, or gives up when the caller does.
func slow(w http.ResponseWriter, r *http.Request) error {
	select {
	case <-time.After(SlowDelay):
		return text(w, "Slow Response")
	case <-r.Context().Done():
		return r.Context().Err()
	}
}

// hijack switches protocols and takes the connection over: it reads the
// first packet, writes "Hello" and closes.
func hijack(w http.ResponseWriter, r *http.Request) error {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := buf.WriteString("HTTP/1.1 101 Switching Protocols\r\n\r\n"); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	_, _ = buf.Reader.Peek(1)
	_, err = conn.Write([]byte("Hello"))
	return err
}

// mirrored is the mirror's answer: the request as the function saw it.
type mirrored struct {
	URL     string      `json:"url"`
	Method  string      `json:"method"`
	Headers [][2]string `json:"headers"`
	Body    any         `json:"body"`
}

// mirror echoes the request: its URL (against Origin), method, headers and
// body, read as the response-type header says (json, form, blob,
// arrayBuffer, else text).
func mirror(w http.ResponseWriter, r *http.Request) error {
	body, err := mirrorBody(r)
	if err != nil {
		return functions.NewError(http.StatusBadRequest, map[string]string{"error": err.Error()}, err)
	}
	u := Origin + "/mirror"
	if r.URL.Path != "/" {
		u += r.URL.Path
	}
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(mirrored{URL: u, Method: r.Method, Headers: headerPairs(r), Body: body})
}

// headerPairs lists the request's headers as a Fetch Headers object
// iterates them: lower-case names in order, repeated values joined by ", ",
// host included.
func headerPairs(r *http.Request) [][2]string {
	pairs := [][2]string{{"host", r.Host}}
	for name, vals := range r.Header {
		pairs = append(pairs, [2]string{strings.ToLower(name), strings.Join(vals, ", ")})
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return pairs
}

func mirrorBody(r *http.Request) (any, error) {
	switch r.Header.Get("response-type") {
	case "json":
		var v json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	case "form":
		return formEntries(r)
	}
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// formEntries lists a form body's fields as [name, value] pairs, in order.
func formEntries(r *http.Request) ([][2]string, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	entries := [][2]string{}
	switch mt {
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return entries, nil
			}
			if err != nil {
				return nil, err
			}
			v, err := io.ReadAll(p)
			if err != nil {
				return nil, err
			}
			entries = append(entries, [2]string{p.FormName(), string(v)})
		}
	case "application/x-www-form-urlencoded":
		sc := bufio.NewScanner(r.Body)
		sc.Split(splitAmp)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), "=")
			k, err1 := url.QueryUnescape(k)
			v, err2 := url.QueryUnescape(v)
			if err := errors.Join(err1, err2); err != nil {
				return nil, err
			}
			entries = append(entries, [2]string{k, v})
		}
		return entries, sc.Err()
	}
	return nil, errors.New("not a form: " + mt)
}

// splitAmp splits a urlencoded body at '&'.
func splitAmp(data []byte, atEOF bool) (int, []byte, error) {
	if i := strings.IndexByte(string(data), '&'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
