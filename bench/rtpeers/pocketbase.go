package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// pocketBase is a PocketBase server with the benchmark's collection:
// events (worker, owner, body), readable and creatable by its owner only.
type pocketBase struct {
	*proc
	hc *http.Client
}

// pbPassword is every benchmark account's password.
const pbPassword = "bench-password-1234"

// startPocketBase starts `serve` on a fresh data folder with a superuser
// made by its CLI, then creates the collection through its API.
func startPocketBase(ctx context.Context, bin, tmp string) (*pocketBase, error) {
	dir := filepath.Join(tmp, "pb_data")
	if out, err := exec.CommandContext(ctx, bin, "superuser", "upsert", "admin@bench.test", pbPassword, "--dir", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pocketbase superuser: %w: %s", err, out)
	}
	port, err := bench.FreePort()
	if err != nil {
		return nil, err
	}
	p, err := startProc(ctx, "pocketbase", tmp, tmp, port, os.Environ(), "/api/health", bin,
		"serve", "--http", "127.0.0.1:"+strconv.Itoa(port), "--dir", dir)
	if err != nil {
		return nil, err
	}
	pb := &pocketBase{proc: p, hc: bench.HTTPClient(64)}
	admin, _, err := pb.signIn("_superusers", "admin@bench.test")
	if err != nil {
		p.stop()
		return nil, err
	}
	rule := "owner = @request.auth.id"
	coll := map[string]any{
		"name": "events", "type": "base", "listRule": rule, "viewRule": rule, "createRule": rule,
		"fields": []map[string]any{
			{"name": "worker", "type": "number"},
			{"name": "seq", "type": "number"},
			{"name": "owner", "type": "relation", "collectionId": "_pb_users_auth_", "maxSelect": 1},
			{"name": "body", "type": "text"},
		},
	}
	signedIn := `@request.auth.id != ""`
	feed := map[string]any{
		"name": "feed", "type": "base", "listRule": signedIn, "viewRule": signedIn, "createRule": "author = @request.auth.id",
		"fields": []map[string]any{
			{"name": "worker", "type": "number"},
			{"name": "seq", "type": "number"},
			{"name": "author", "type": "relation", "collectionId": "_pb_users_auth_", "maxSelect": 1},
			{"name": "body", "type": "text"},
		},
	}
	for _, c := range []map[string]any{coll, feed} {
		if err := pb.call("POST", "/api/collections", admin, c, nil); err != nil {
			p.stop()
			return nil, fmt.Errorf("pocketbase collection: %w", err)
		}
	}
	return pb, nil
}

// call sends a JSON request and decodes a JSON answer into out (when not
// nil); any status over 299 is an error.
func (pb *pocketBase) call(method, path, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, pb.url+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := pb.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode > 299 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// signIn returns the token and record id of an account.
func (pb *pocketBase) signIn(collection, email string) (token, id string, err error) {
	var out struct {
		Token  string `json:"token"`
		Record struct {
			ID string `json:"id"`
		} `json:"record"`
	}
	err = pb.call("POST", "/api/collections/"+collection+"/auth-with-password", "",
		map[string]string{"identity": email, "password": pbPassword}, &out)
	return out.Token, out.Record.ID, err
}

// newUser creates and signs in a user.
func (pb *pocketBase) newUser(email string) (token, id string, err error) {
	if err := pb.call("POST", "/api/collections/users/records", "",
		map[string]string{"email": email, "password": pbPassword, "passwordConfirm": pbPassword}, nil); err != nil {
		return "", "", err
	}
	return pb.signIn("users", email)
}

// pbSubscriber is one SSE connection subscribed to the events collection
// with a filter, as the JS SDK's collection('events').subscribe('*', fn,
// {filter}) does.
type pbSubscriber struct {
	res    *http.Response
	events chan []byte // each record event's data
	errs   chan error
}

// subscribe subscribes to every event of the events collection that
// passes filter.
func (pb *pocketBase) subscribe(token, filter string) (*pbSubscriber, error) {
	opts, _ := json.Marshal(map[string]any{"query": map[string]string{"filter": filter}})
	return pb.subscribeTopic(token, "events/*?options="+url.QueryEscape(string(opts)))
}

// subscribeTopic opens the SSE stream, waits for PB_CONNECT and sets the
// subscription with the user's token.
func (pb *pocketBase) subscribeTopic(token, topic string) (*pbSubscriber, error) {
	req, err := http.NewRequest("GET", pb.url+"/api/realtime", nil)
	if err != nil {
		return nil, err
	}
	// The stream has no deadline: a client of its own, without timeout.
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		return nil, err
	}
	s := &pbSubscriber{res: res, events: make(chan []byte, 64), errs: make(chan error, 1)}
	connected := make(chan string, 1)
	go s.read(connected)
	var clientID string
	select {
	case clientID = <-connected:
	case err := <-s.errs:
		_ = res.Body.Close()
		return nil, err
	case <-time.After(10 * time.Second):
		_ = res.Body.Close()
		return nil, fmt.Errorf("no PB_CONNECT within 10 s")
	}
	if err := pb.call("POST", "/api/realtime", token, map[string]any{"clientId": clientID, "subscriptions": []string{topic}}, nil); err != nil {
		_ = res.Body.Close()
		return nil, err
	}
	return s, nil
}

// read parses the event stream: "event:" and "data:" lines, a blank line
// ends an event.
func (s *pbSubscriber) read(connected chan<- string) {
	sc := bufio.NewScanner(s.res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var event string
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimPrefix(line, "event:")
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(line, "data:")...)
		case line == "":
			if event == "PB_CONNECT" {
				var c struct {
					ClientID string `json:"clientId"`
				}
				_ = json.Unmarshal(data, &c)
				connected <- c.ClientID
			} else if event != "" {
				s.events <- data
			}
			event, data = "", nil
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	s.errs <- err
}

func (s *pbSubscriber) close() { _ = s.res.Body.Close() }
