package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// floodAddr is the one address the hostile client comes from (through the
// trusted proxy header, as every virtual user).
const floodAddr = "198.51.100.66"

// Sizes of the flood, those of the attack that once locked every user out.
const (
	floodJoins   = 400 // phx_join frames one socket sends back to back, every second
	floodSockets = 400 // anonymous sockets it tries to hold open, each joined to a channel
)

// flooder plays one hostile client during the load: every second a socket
// that sends floodJoins phx_join frames back to back (anon key, topics
// realtime:flood<i>), and as many anonymous sockets as the server admits,
// up to floodSockets, each joined to one channel and kept open. The other
// realtime clients must notice nothing: their upgrades, joins and
// deliveries are checked as always.
type flooder struct {
	wsURL string

	joinsSent       atomic.Int64
	joinsAccepted   atomic.Int64 // ok replies
	joinsRefused    atomic.Int64 // ClientJoinRateLimitReached replies (after the server's error pause)
	upgradesRefused atomic.Int64 // 429 answers to its upgrades
	socketsRefused  atomic.Int64 // joins refused with ConnectionRateLimitReached
	socketsHeld     atomic.Int64 // now
	maxHeld         atomic.Int64
	otherErrors     atomic.Int64
	firstError      atomic.Pointer[string]

	wg sync.WaitGroup
}

// floodReport is what the flood did and how the server answered it.
type floodReport struct {
	Address         string `json:"address"`
	JoinsSent       int64  `json:"joins_sent"`
	JoinsAccepted   int64  `json:"joins_accepted"`
	JoinsRefused    int64  `json:"joins_refused"`
	UpgradesRefused int64  `json:"upgrades_refused"`
	SocketsRefused  int64  `json:"socket_joins_refused"`
	MaxHeld         int64  `json:"max_sockets_held"`
	OtherErrors     int64  `json:"other_errors"`
	FirstError      string `json:"first_error,omitempty"`
}

func newFlooder(wsURL string) *flooder { return &flooder{wsURL: wsURL} }

// start runs both floods until ctx ends; stop waits for them.
func (f *flooder) start(ctx context.Context) {
	f.wg.Add(2)
	go func() { defer f.wg.Done(); f.joinFlood(ctx) }()
	go func() { defer f.wg.Done(); f.socketFlood(ctx) }()
}

func (f *flooder) stop() { f.wg.Wait() }

// dial opens a socket from the flood's address; a refused upgrade is
// counted.
func (f *flooder) dial(ctx context.Context) (*websocket.Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: rtPushTimeout}
	ws, res, err := d.DialContext(ctx, f.wsURL, http.Header{"X-Forwarded-For": {floodAddr}, "User-Agent": {clientInfo}})
	if err != nil {
		if res != nil && res.StatusCode == http.StatusTooManyRequests {
			f.upgradesRefused.Add(1)
		} else if ctx.Err() == nil {
			f.fail(err)
		}
		return nil, err
	}
	return ws, nil
}

func (f *flooder) fail(err error) {
	f.otherErrors.Add(1)
	msg := err.Error()
	f.firstError.CompareAndSwap(nil, &msg)
}

// joinFlood sends a burst of joins on a new socket every second, each
// burst on its own goroutine (the server closes the socket only after
// its error pause), at most a few at once.
func (f *flooder) joinFlood(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	busy := make(chan struct{}, 8)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case busy <- struct{}{}:
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-busy }()
				f.burst(ctx)
			}()
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// burst is one socket's floodJoins joins, then its replies until the
// server closes it.
func (f *flooder) burst(ctx context.Context) {
	ws, err := f.dial(ctx)
	if err != nil {
		return
	}
	defer ws.Close()
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	defer stop()
	for i := range floodJoins {
		frame := fmt.Sprintf(`{"topic":"realtime:flood%d","event":"phx_join","payload":{"config":{}},"ref":"%d","join_ref":"%d"}`, i, i+1, i+1)
		if ws.WriteMessage(websocket.TextMessage, []byte(frame)) != nil {
			return
		}
		f.joinsSent.Add(1)
	}
	for {
		_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		switch {
		case strings.Contains(string(data), "ClientJoinRateLimitReached"):
			f.joinsRefused.Add(1)
		case strings.Contains(string(data), `"status":"ok"`):
			f.joinsAccepted.Add(1)
		}
	}
}

// socketFlood opens anonymous sockets from the flood's address, each
// joining one channel, and holds every one the server admits, up to
// floodSockets; it tries again every 100 ms while the server refuses.
// Held sockets heartbeat, so the server's idle timeout does not end them.
func (f *flooder) socketFlood(ctx context.Context) {
	pace := time.NewTicker(100 * time.Millisecond)
	defer pace.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		if f.socketsHeld.Load() < floodSockets {
			if ws := f.holdOne(ctx); ws != nil {
				f.maxHeld.Store(max(f.maxHeld.Load(), f.socketsHeld.Add(1)))
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer f.socketsHeld.Add(-1)
					f.keep(ctx, ws)
				}()
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-pace.C:
		}
	}
}

// errFloodRefused is a flood socket whose join the server refused.
var errFloodRefused = errors.New("join refused")

// holdOne opens a socket and joins it to a channel; nil when the server
// refused either.
func (f *flooder) holdOne(ctx context.Context) *websocket.Conn {
	ws, err := f.dial(ctx)
	if err != nil {
		return nil
	}
	err = func() error {
		join := `{"topic":"realtime:flood-sockets","event":"phx_join","payload":{"config":{}},"ref":"1","join_ref":"1"}`
		if err := ws.WriteMessage(websocket.TextMessage, []byte(join)); err != nil {
			return err
		}
		_ = ws.SetReadDeadline(time.Now().Add(rtPushTimeout))
		_, data, err := ws.ReadMessage()
		switch {
		case err != nil:
			return err
		case strings.Contains(string(data), "ConnectionRateLimitReached"):
			f.socketsRefused.Add(1)
			return errFloodRefused
		case strings.Contains(string(data), "ClientJoinRateLimitReached"):
			// The join flood used up the address's joins for this second.
			f.joinsRefused.Add(1)
			return errFloodRefused
		case !strings.Contains(string(data), `"status":"ok"`):
			return fmt.Errorf("flood join answered %s", data)
		}
		return nil
	}()
	if err != nil {
		_ = ws.Close()
		if !errors.Is(err, errFloodRefused) && ctx.Err() == nil {
			f.fail(err)
		}
		return nil
	}
	return ws
}

// keep holds a flood socket until ctx ends or the server closes it.
func (f *flooder) keep(ctx context.Context, ws *websocket.Conn) {
	defer ws.Close()
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	defer stop()
	go func() {
		beat := time.NewTicker(20 * time.Second)
		defer beat.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-beat.C:
			}
			if ws.WriteMessage(websocket.TextMessage, []byte(`{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"h"}`)) != nil {
				return
			}
		}
	}()
	for {
		_ = ws.SetReadDeadline(time.Time{})
		if _, _, err := ws.NextReader(); err != nil {
			return
		}
	}
}

// report sums the flood up.
func (f *flooder) report() *floodReport {
	if f == nil {
		return nil
	}
	r := &floodReport{Address: floodAddr, JoinsSent: f.joinsSent.Load(), JoinsAccepted: f.joinsAccepted.Load(), JoinsRefused: f.joinsRefused.Load(),
		UpgradesRefused: f.upgradesRefused.Load(), SocketsRefused: f.socketsRefused.Load(), MaxHeld: f.maxHeld.Load(),
		OtherErrors: f.otherErrors.Load()}
	if e := f.firstError.Load(); e != nil {
		r.FirstError = *e
	}
	return r
}

// check is the flood's line in the verdict: the server held it to its
// share (most of its joins went unanswered or were refused: a refusal is
// answered only after the server's error pause, which a short run may not
// see; it held fewer sockets than it tried and was refused some). That
// the other clients noticed nothing is what the realtime checks and the
// steady error count say.
func (r *floodReport) check() check {
	return check{"realtime flood from one address held to its own share",
		r.JoinsAccepted < r.JoinsSent/2 && r.MaxHeld < floodSockets && r.UpgradesRefused+r.SocketsRefused+r.JoinsRefused > 0,
		fmt.Sprintf("from %s: %d joins sent, %d accepted, %d refused (ClientJoinRateLimitReached); at most %d of %d sockets held, %d upgrades refused (429), %d socket joins refused (ConnectionRateLimitReached); %d other errors (fault windows included)%s",
			r.Address, r.JoinsSent, r.JoinsAccepted, r.JoinsRefused, r.MaxHeld, floodSockets, r.UpgradesRefused, r.SocketsRefused, r.OtherErrors, firstOf(r.FirstError))}
}

// print writes the flood's section of the report.
func (r *floodReport) print(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nrealtime flood from %s (every second %d phx_join on one socket; up to %d anonymous sockets held)\n", r.Address, floodJoins, floodSockets)
	fmt.Fprintf(w, "  joins: %d sent, %d accepted, %d refused; sockets: at most %d held, %d upgrades refused, %d joins refused; other errors %d\n",
		r.JoinsSent, r.JoinsAccepted, r.JoinsRefused, r.MaxHeld, r.UpgradesRefused, r.SocketsRefused, r.OtherErrors)
}
