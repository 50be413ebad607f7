package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// rtPlan tunes the realtime clients.
type rtPlan struct {
	clients   int           // at most this many users hold a socket at once
	heartbeat time.Duration // realtime-js: 25 s
	grace     time.Duration // a delivery may take this long before it counts as missing
	settle    time.Duration // a room member receives the broadcasts sent this long after its join
	joinEvery time.Duration // pacing of joins, under the server's joins-per-second limit
}

// rtManager keeps one realtime client per signed-in user in play (up to
// the bound), reconnects one the server or the network ended, closes all
// before a fault and opens them again after it, and keeps every client
// it ever had for the end-of-run accounting.
type rtManager struct {
	plan  rtPlan
	wsURL string
	api   *api

	pmu      sync.Mutex
	nextJoin time.Time

	mu        sync.Mutex
	wanted    map[string]*user
	current   map[string]*rtClient
	all       []*rtClient
	closing   int // clients of users that left, open for the grace period
	suspended bool
	finished  bool
	sessions  sync.WaitGroup
	maxLive   int

	bmu   sync.Mutex
	sent  []*bcastSent
	drops []rtDrop
}

// bcastSent is a broadcast the soak sent, and whether it was acked.
type bcastSent struct {
	id      string
	from    *rtClient
	sentAt  time.Time
	ackedAt time.Time
}

// rtDrop is a client the soak did not close itself.
type rtDrop struct {
	at    time.Time
	fault bool
	why   string
}

func newRTManager(p rtPlan, apiURL string, a *api) *rtManager {
	ws := "ws" + strings.TrimPrefix(apiURL, "http") + "/realtime/v1/websocket?apikey=" + a.anon + "&vsn=1.0.0"
	return &rtManager{plan: p, wsURL: ws, api: a, wanted: map[string]*user{}, current: map[string]*rtClient{}}
}

// open gives u a realtime client, when the bound allows.
func (m *rtManager) open(u *user) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// A user without a session (a sign-up awaiting confirmation) has no
	// token to join with.
	if m.finished || m.wanted[u.id] != nil || len(m.wanted)+m.closing >= m.plan.clients || u.token() == "" {
		return
	}
	m.wanted[u.id] = u
	if !m.suspended {
		m.sessions.Add(1)
		go m.session(u.id, u)
	}
}

// leave closes u's client (a fan retired: the tab is gone) after the
// grace period, so what was sent to it until now is still counted.
func (m *rtManager) leave(u *user) {
	if m == nil {
		return
	}
	m.mu.Lock()
	delete(m.wanted, u.id)
	c := m.current[u.id]
	if c != nil {
		m.closing++ // still open: it counts toward the bound
	}
	m.mu.Unlock()
	if c != nil {
		go func() {
			select {
			case <-c.dead:
			case <-time.After(m.plan.grace):
			}
			c.close()
			m.mu.Lock()
			m.closing--
			m.mu.Unlock()
		}()
	}
}

// suspend closes every client before a fault: subscriptions live outside
// fault windows only.
func (m *rtManager) suspend() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.suspended = true
	m.mu.Unlock()
	m.closeAll()
}

// resume reconnects every wanted user once the fault is over.
func (m *rtManager) resume() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.suspended = false
	for uid, u := range m.wanted {
		m.sessions.Add(1)
		go m.session(uid, u)
	}
}

func (m *rtManager) closeAll() {
	m.mu.Lock()
	cs := make([]*rtClient, 0, len(m.current))
	for _, c := range m.current {
		cs = append(cs, c)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	m.sessions.Wait()
}

// active reports whether u should hold a client now. The user's id is
// passed apart: the worker holding u may rewrite u's fields meanwhile.
func (m *rtManager) active(uid string, u *user) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.suspended && !m.finished && m.wanted[uid] == u
}

// session keeps u connected until the soak closes its client: a client
// the server or the network ended is replaced after a second, realtime-js's
// first reconnect delay.
func (m *rtManager) session(uid string, u *user) {
	defer m.sessions.Done()
	for m.active(uid, u) {
		c, err := m.connect(uid, u)
		if errors.Is(err, errClosedByUs) {
			return
		}
		if err == nil {
			m.keep(c)
			why := c.lost()
			if why == "" {
				return
			}
			m.drop(why)
		}
		m.wait(uid, u, time.Second)
	}
}

// wait sleeps d, or less when u should no longer be connected.
func (m *rtManager) wait(uid string, u *user, d time.Duration) {
	end := time.Now().Add(d)
	for m.active(uid, u) {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, 50*time.Millisecond))
	}
}

// connect opens u's socket and joins its three channels, recording each
// step as a request kind. A client the soak closed meanwhile is returned
// with errClosedByUs and nothing recorded.
func (m *rtManager) connect(uid string, u *user) (*rtClient, error) {
	if !m.pace(uid, u) {
		return nil, errClosedByUs
	}
	var c *rtClient
	err := m.step("realtime: connect", func() error {
		var err error
		c, err = dialRealtime(m.wsURL, uid, u)
		return err
	})
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.suspended || m.finished || m.wanted[uid] != u {
		m.mu.Unlock()
		c.close()
		return c, errClosedByUs
	}
	m.current[uid] = c
	m.all = append(m.all, c)
	m.maxLive = max(m.maxLive, len(m.current))
	m.mu.Unlock()
	steps := []struct {
		kind string
		f    func() error
	}{
		{"realtime: join notifications (until live)", c.joinNotifications},
		{"realtime: join online-users (presence)", c.joinOnline},
		{"realtime: presence track", c.track},
		{"realtime: join soak-room (broadcast)", c.joinRoom},
	}
	for _, s := range steps {
		if s.kind != "realtime: presence track" && !m.pace(uid, u) {
			c.close()
			m.forget(c)
			return c, errClosedByUs
		}
		if err := m.step(s.kind, s.f); err != nil {
			if !errors.Is(err, errClosedByUs) {
				c.lose(err.Error())
			}
			m.forget(c)
			return c, err
		}
	}
	return c, nil
}

// step runs one request-like step and records it while the load is
// measured; a step cut short by the soak closing the client is not one.
func (m *rtManager) step(kind string, f func() error) error {
	t0 := time.Now()
	rec := m.api.rec.Load()
	var mark faultMark
	if rec != nil {
		mark = rec.faults.mark()
	}
	err := f()
	if rec != nil && !errors.Is(err, errClosedByUs) {
		rec.add(kind, t0, time.Since(t0), outcomeOf(err), mark, err)
	}
	return err
}

// keep heartbeats c until it ends.
func (m *rtManager) keep(c *rtClient) {
	defer m.forget(c)
	// Sockets do not all beat at the same moment.
	first := time.Duration(rand.Int64N(int64(m.plan.heartbeat))) + time.Millisecond
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-c.dead:
			return
		case <-t.C:
		}
		// realtime-js gives a heartbeat until the next one is due; the smoke
		// run beats faster than replies may take on a busy machine.
		err := m.step("realtime: heartbeat", func() error { return c.heartbeat(max(m.plan.heartbeat, rtPushTimeout)) })
		if err != nil && !errors.Is(err, errClosedByUs) {
			c.lose("heartbeat: " + err.Error())
			return
		}
		t.Reset(m.plan.heartbeat)
	}
}

func (m *rtManager) forget(c *rtClient) {
	m.mu.Lock()
	if m.current[c.uid] == c {
		delete(m.current, c.uid)
	}
	m.mu.Unlock()
}

// drop records a client the soak did not end itself.
func (m *rtManager) drop(why string) {
	fault := false
	if rec := m.api.rec.Load(); rec != nil {
		fault = rec.faults.active.Load()
	}
	m.bmu.Lock()
	m.drops = append(m.drops, rtDrop{at: time.Now(), fault: fault, why: why})
	m.bmu.Unlock()
}

// pace spaces joins out: after a restart every client rejoins at once,
// and the server refuses more than its joins-per-second limit. False when
// u should no longer be connected.
func (m *rtManager) pace(uid string, u *user) bool {
	m.pmu.Lock()
	now := time.Now()
	at := now
	if m.nextJoin.After(now) {
		at = m.nextJoin
	}
	m.nextJoin = at.Add(m.plan.joinEvery)
	m.pmu.Unlock()
	m.wait(uid, u, at.Sub(now))
	return m.active(uid, u)
}

// ready returns a random client that has joined the room.
func (m *rtManager) ready(rng *rand.Rand) *rtClient {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var cs []*rtClient
	for _, c := range m.current {
		c.mu.Lock()
		ok := !c.roomAt.IsZero()
		c.mu.Unlock()
		if ok {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return cs[rng.IntN(len(cs))]
}

// broadcastAction sends one acknowledged broadcast to the room from a
// random client; every other member must receive it.
func broadcastAction(ctx context.Context, w *world, rng *rand.Rand) error {
	c := w.rt.ready(rng)
	if c == nil {
		return browse(ctx, w, rng)
	}
	return w.rt.broadcast(c, fmt.Sprintf("%s-b%d", w.runID, w.seq.Add(1)))
}

// broadcast sends one broadcast from c and keeps it for the accounting
// (unless the soak closed c meanwhile: then whether it went out is not
// known).
func (m *rtManager) broadcast(c *rtClient, id string) error {
	b := &bcastSent{id: id, from: c, sentAt: time.Now()}
	err := m.step("realtime: broadcast (ack)", func() error { return c.broadcast(b.id) })
	if errors.Is(err, errClosedByUs) {
		return nil
	}
	if err == nil {
		b.ackedAt = time.Now()
	}
	m.bmu.Lock()
	m.sent = append(m.sent, b)
	m.bmu.Unlock()
	return err
}

// finish ends the realtime side after the load: it waits for every
// wanted user to be connected, sends each a last notification and the
// room a last broadcast (so every client has something to receive in
// every mode, the smoke run too), waits the grace period,
// takes the presence views, then closes every client.
func (m *rtManager) finish(ctx context.Context, w *world) (presenceReport, error) {
	if m == nil {
		return presenceReport{}, nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !m.allReady() {
		time.Sleep(100 * time.Millisecond)
	}
	m.mu.Lock()
	uids := make([]string, 0, len(m.current))
	for uid := range m.current {
		uids = append(uids, uid)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, len(uids)+1)
	jobs := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for uid := range jobs {
				if err := w.insertNotification(ctx, uid, "Soak: end of run"); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, uid := range uids {
		jobs <- uid
	}
	close(jobs)
	wg.Wait()
	if c := m.ready(rand.New(rand.NewPCG(1, 2))); c != nil {
		if err := m.broadcast(c, w.runID+"-last"); err != nil {
			errs <- err
		}
	}
	close(errs)
	time.Sleep(m.plan.grace)
	pr := m.presenceViews()
	m.mu.Lock()
	m.finished = true
	m.mu.Unlock()
	m.closeAll()
	return pr, <-errs
}

// allReady reports whether every wanted user has a client in the room.
func (m *rtManager) allReady() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id := range m.wanted {
		c := m.current[id]
		if c == nil {
			return false
		}
		c.mu.Lock()
		ok := !c.roomAt.IsZero()
		c.mu.Unlock()
		if !ok {
			return false
		}
	}
	return true
}

// presenceReport is what the clients' presence views held at the end.
type presenceReport struct {
	Clients    int    `json:"clients"`    // live clients that tracked
	Agree      int    `json:"agree"`      // whose view is exactly the tracked users, one meta each
	JoinsSeen  int    `json:"joins_seen"` // presence joins of other users, over the run
	Tracks     int    `json:"tracks"`     // clients that tracked, over the run
	FirstWrong string `json:"first_wrong,omitempty"`
}

// presenceViews compares every live client's presence view with the
// users whose live clients tracked: each must see all of them, once.
func (m *rtManager) presenceViews() presenceReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	var pr presenceReport
	want := map[string]bool{}
	for id, c := range m.current {
		c.mu.Lock()
		if c.tracked {
			want[id] = true
		}
		c.mu.Unlock()
	}
	for _, c := range m.all {
		c.mu.Lock()
		pr.JoinsSeen += c.joinsSeen
		if c.tracked {
			pr.Tracks++
		}
		c.mu.Unlock()
	}
	for id := range want {
		c := m.current[id]
		c.mu.Lock()
		pr.Clients++
		wrong := ""
		for k, refs := range c.view {
			if !want[k] {
				wrong = fmt.Sprintf("client %s sees %s, which is not online", id, k)
			} else if len(refs) != 1 {
				wrong = fmt.Sprintf("client %s sees %s with %d metas", id, k, len(refs))
			}
		}
		for k := range want {
			if len(c.view[k]) == 0 {
				wrong = fmt.Sprintf("client %s does not see %s", id, k)
			}
		}
		c.mu.Unlock()
		if wrong == "" {
			pr.Agree++
		} else if pr.FirstWrong == "" {
			pr.FirstWrong = wrong
		}
	}
	return pr
}
