package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
)

// rtReport is the realtime side of the run.
type rtReport struct {
	MaxClients    int            `json:"max_clients"` // connected at once
	Sessions      int            `json:"sessions"`    // clients over the run (reconnects, fans coming and going)
	Notifications noteReport     `json:"notifications"`
	Broadcasts    bcastReport    `json:"broadcasts"`
	Presence      presenceReport `json:"presence"`
	DropsSteady   int            `json:"lost_outside_fault_windows"`
	DropsFault    int            `json:"lost_in_fault_windows"`
	FirstDrop     string         `json:"first_lost,omitempty"`
}

// noteReport counts notification deliveries against the database: every
// notification committed for a user while the user's client was
// subscribed (from "Subscribed to PostgreSQL" until the grace period
// before it closed) must arrive at that client exactly once.
type noteReport struct {
	Expected     int           `json:"expected"`
	Delivered    int           `json:"delivered"` // of the expected
	Missing      int           `json:"missing"`
	Duplicates   int           `json:"duplicates"`
	Early        int           `json:"delivered_created_before_subscribed"`
	Late         int           `json:"delivered_in_the_grace_before_close"`
	Foreign      int           `json:"delivered_to_another_user"`
	BadIDs       int           `json:"events_without_the_binding_id"`
	PerSec       float64       `json:"deliveries_per_sec"`
	P50          time.Duration `json:"commit_to_delivery_p50_ns"`
	P99          time.Duration `json:"commit_to_delivery_p99_ns"`
	FirstMissing string        `json:"first_missing,omitempty"`
	FirstBadIDs  string        `json:"first_without_the_binding_id,omitempty"`
}

// bcastReport counts broadcasts: each acknowledged one must reach every
// other room member that joined before it was sent and stayed until the
// grace period after its ack.
type bcastReport struct {
	Sent       int           `json:"sent"`
	Acked      int           `json:"acked"`
	Expected   int           `json:"expected_deliveries"`
	Received   int           `json:"received"` // of the expected
	Missing    int           `json:"missing"`
	Duplicates int           `json:"duplicates"`
	PerSec     float64       `json:"deliveries_per_sec"`
	P50        time.Duration `json:"send_to_receive_p50_ns"`
	P99        time.Duration `json:"send_to_receive_p99_ns"`
}

// rtSnapshot is one client's accounting, copied out of its lock.
type rtSnapshot struct {
	c                        *rtClient
	uid                      string
	liveAt, roomAt, closedAt time.Time
	notes                    map[string]noteSeen
	bcasts                   map[string]int
	bcastLat                 []rtLatency
	firstBad                 string
}

func (m *rtManager) snapshots() []rtSnapshot {
	m.mu.Lock()
	all := append([]*rtClient(nil), m.all...)
	m.mu.Unlock()
	out := make([]rtSnapshot, 0, len(all))
	for _, c := range all {
		c.mu.Lock()
		s := rtSnapshot{c: c, uid: c.uid, liveAt: c.liveAt, roomAt: c.roomAt, closedAt: c.closedAt,
			notes: make(map[string]noteSeen, len(c.notes)), bcasts: c.bcasts, bcastLat: c.bcastLat, firstBad: c.firstBad}
		for id, n := range c.notes {
			s.notes[id] = *n
		}
		c.mu.Unlock()
		out = append(out, s)
	}
	return out
}

// committed is a notification row.
type committed struct {
	id      string
	created time.Time
}

// rtVerdict checks the clients' deliveries against the database after
// every client closed; start and steady are the measured load's start and
// its time outside fault windows, for the rates.
func (m *rtManager) rtVerdict(ctx context.Context, db *pgxpool.Pool, pr presenceReport, start time.Time, elapsed, steady time.Duration) (rtReport, []check, error) {
	var r rtReport
	snaps := m.snapshots()
	if len(snaps) == 0 {
		return r, []check{{"realtime clients connected", false, "no client ever connected"}}, nil
	}
	from := snaps[0].c.opened
	for _, s := range snaps {
		from = minTime(from, s.c.opened)
	}
	byUser := map[string][]committed{}
	rows, err := db.Query(ctx, `SELECT id::text, user_id::text, created_at FROM public.notifications WHERE created_at >= $1`, from.Add(-time.Second))
	if err != nil {
		return r, nil, err
	}
	for rows.Next() {
		var uid string
		var n committed
		if err := rows.Scan(&n.id, &uid, &n.created); err != nil {
			return r, nil, err
		}
		byUser[uid] = append(byUser[uid], n)
	}
	if err := rows.Err(); err != nil {
		return r, nil, err
	}
	end := start.Add(elapsed)
	r.Notifications = m.countNotes(snaps, byUser, start, end, steady)
	r.Broadcasts = m.countBroadcasts(snaps, start, end, steady)
	r.Presence = pr
	r.Sessions = len(snaps)
	m.mu.Lock()
	r.MaxClients = m.maxLive
	m.mu.Unlock()
	m.bmu.Lock()
	for _, d := range m.drops {
		if d.fault {
			r.DropsFault++
		} else {
			r.DropsSteady++
			if r.FirstDrop == "" {
				r.FirstDrop = d.why
			}
		}
	}
	m.bmu.Unlock()

	n, b := r.Notifications, r.Broadcasts
	checks := []check{
		{"notifications delivered once to their subscriber",
			n.Expected > 0 && n.Missing == 0 && n.Duplicates == 0 && n.Foreign == 0 && n.BadIDs == 0,
			fmt.Sprintf("%d committed while subscribed, %d delivered, %d missing, %d duplicated, %d to another user, %d without the binding id%s%s",
				n.Expected, n.Delivered, n.Missing, n.Duplicates, n.Foreign, n.BadIDs, firstOf(n.FirstMissing), firstOf(n.FirstBadIDs))},
		{"broadcasts acked and received by every room member", b.Acked == b.Sent && b.Missing == 0 && b.Duplicates == 0,
			fmt.Sprintf("%d sent, %d acked; %d deliveries expected, %d received, %d missing, %d duplicated",
				b.Sent, b.Acked, b.Expected, b.Received, b.Missing, b.Duplicates)},
		{"presence: every client sees every online user once", pr.Clients > 0 && pr.Agree == pr.Clients,
			fmt.Sprintf("%d of %d clients agree at the end; %d tracks, %d joins of others seen over the run%s",
				pr.Agree, pr.Clients, pr.Tracks, pr.JoinsSeen, firstOf(pr.FirstWrong))},
		{"realtime clients held outside fault windows", r.DropsSteady == 0,
			fmt.Sprintf("%d lost outside fault windows, %d in them%s", r.DropsSteady, r.DropsFault, firstOf(r.FirstDrop))},
	}
	return r, checks, nil
}

func firstOf(s string) string {
	if s == "" {
		return ""
	}
	return "; first: " + s
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// countNotes matches each client's deliveries with the notifications
// committed for its user while it was subscribed.
func (m *rtManager) countNotes(snaps []rtSnapshot, byUser map[string][]committed, start, end time.Time, steady time.Duration) noteReport {
	var r noteReport
	var lat []time.Duration
	for _, s := range snaps {
		expected := map[string]bool{}
		if !s.liveAt.IsZero() {
			to := s.closedAt.Add(-m.plan.grace)
			for _, n := range byUser[s.uid] {
				if n.created.Before(s.liveAt) || n.created.After(to) {
					continue
				}
				expected[n.id] = true
				r.Expected++
				if _, ok := s.notes[n.id]; ok {
					r.Delivered++
				} else {
					r.Missing++
					if r.FirstMissing == "" {
						r.FirstMissing = fmt.Sprintf("notification %s for %s created %s, client subscribed %s – %s",
							n.id, s.uid, n.created.Format(time.StampMicro), s.liveAt.Format(time.StampMicro), s.closedAt.Format(time.StampMicro))
					}
				}
			}
		}
		if r.FirstBadIDs == "" {
			r.FirstBadIDs = s.firstBad
		}
		for id, n := range s.notes {
			r.Duplicates += n.count - 1
			if n.userID != s.uid {
				r.Foreign++
			}
			if n.badIDs {
				r.BadIDs++
			}
			if !expected[id] {
				if n.created.Before(s.liveAt) {
					r.Early++
				} else {
					r.Late++
				}
			}
			if !n.received.Before(start) && n.received.Before(end) && !n.created.IsZero() {
				lat = append(lat, n.received.Sub(n.created))
			}
		}
	}
	res := bench.NewResult("", lat, 0, steady)
	r.PerSec, r.P50, r.P99 = res.PerSec, res.P50, res.P99
	return r
}

// countBroadcasts matches the acknowledged broadcasts with what the other
// room members received.
func (m *rtManager) countBroadcasts(snaps []rtSnapshot, start, end time.Time, steady time.Duration) bcastReport {
	var r bcastReport
	m.bmu.Lock()
	sent := append([]*bcastSent(nil), m.sent...)
	m.bmu.Unlock()
	for _, b := range sent {
		r.Sent++
		if b.ackedAt.IsZero() {
			continue
		}
		r.Acked++
		for _, s := range snaps {
			if s.c == b.from || s.roomAt.IsZero() || s.roomAt.Add(m.plan.settle).After(b.sentAt) ||
				s.closedAt.Add(-m.plan.grace).Before(b.ackedAt) {
				continue
			}
			r.Expected++
			if s.bcasts[b.id] > 0 {
				r.Received++
			} else {
				r.Missing++
			}
		}
	}
	var lat []time.Duration
	for _, s := range snaps {
		for _, n := range s.bcasts {
			r.Duplicates += n - 1
		}
		for _, l := range s.bcastLat {
			if !l.at.Before(start) && l.at.Before(end) {
				lat = append(lat, l.d)
			}
		}
	}
	res := bench.NewResult("", lat, 0, steady)
	r.PerSec, r.P50, r.P99 = res.PerSec, res.P50, res.P99
	return r
}

// printRealtime prints the realtime section of the report.
func printRealtime(w io.Writer, r *rtReport, p plan) {
	if r == nil {
		return
	}
	n, b, pr := r.Notifications, r.Broadcasts, r.Presence
	fmt.Fprintf(w, "\nrealtime (vsn 1.0.0; per client: notifications:<user> postgres_changes, online-users presence, soak-room broadcast; heartbeat %s)\n", p.rt.heartbeat)
	fmt.Fprintf(w, "  clients: up to %d at once (bound %d), %d over the run; lost outside fault windows %d, in them %d\n",
		r.MaxClients, p.rt.clients, r.Sessions, r.DropsSteady, r.DropsFault)
	fmt.Fprintf(w, "  notifications: %d committed while subscribed, %d delivered, %d missing, %d duplicated\n",
		n.Expected, n.Delivered, n.Missing, n.Duplicates)
	fmt.Fprintf(w, "    not counted, delivered anyway: %d created before \"Subscribed to PostgreSQL\", %d in the %s before the client closed\n",
		n.Early, n.Late, p.rt.grace)
	fmt.Fprintf(w, "    %.1f deliveries/s; commit→delivery p50 %s, p99 %s\n", n.PerSec, ms(n.P50), ms(n.P99))
	fmt.Fprintf(w, "  broadcasts: %d sent, %d acked; %d deliveries expected, %d received, %d missing, %d duplicated\n",
		b.Sent, b.Acked, b.Expected, b.Received, b.Missing, b.Duplicates)
	fmt.Fprintf(w, "    %.1f deliveries/s; send→receive p50 %s, p99 %s\n", b.PerSec, ms(b.P50), ms(b.P99))
	fmt.Fprintf(w, "  presence: %d tracks, %d joins of other users seen; at the end %d of %d clients see every online user once\n",
		pr.Tracks, pr.JoinsSeen, pr.Agree, pr.Clients)
}
