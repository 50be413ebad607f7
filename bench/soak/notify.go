package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
)

// Actions that insert notifications, which the users' realtime clients
// must each receive exactly once.

// invite is a sponsor inviting an artist for one of the artist's
// unsponsored tracks (an invite names its track), as the sponsor dashboard
// sends it, and the artist declining through the app's RPC. The app's
// trigger notifies the artist of the invite and the sponsor of the answer.
func invite(ctx context.Context, w *world, rng *rand.Rand) error {
	s := take(w.sponsors)
	if s == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(s)
	a := take(w.artists)
	if a == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(a)
	trackID := unsponsoredTrack(w, a.id, rng)
	if trackID == "" {
		return browse(ctx, w, rng)
	}
	if err := w.ready(ctx, s); err != nil {
		return err
	}
	if err := w.ready(ctx, a); err != nil {
		return err
	}
	pair := [2]string{s.id, a.id}
	w.invitesMu.Lock()
	open := w.invitesOpen[pair]
	w.invitesMu.Unlock()
	if open {
		// An earlier answer was lost: the pending invite may still be
		// there, and the pair may hold only one.
		q := url.Values{"sponsor_id": {"eq." + s.id}, "artist_id": {"eq." + a.id}, "status": {"eq.pending"}}
		if _, err := w.api.do(ctx, call{kind: "rest: withdraw invite", method: http.MethodDelete,
			path: "/rest/v1/sponsor_artist_invites?" + q.Encode(), token: s.access, ip: s.ip,
			header: rest(http.MethodDelete), want: http.StatusNoContent}); err != nil {
			return err
		}
	}
	w.setInviteOpen(pair, true)
	var inv struct {
		ID string `json:"id"`
	}
	b, err := w.api.do(ctx, call{kind: "rest: insert invite", method: http.MethodPost,
		path: "/rest/v1/sponsor_artist_invites?select=id", token: s.access, ip: s.ip, want: http.StatusCreated,
		json: map[string]any{"artist_id": a.id, "sponsor_id": s.id, "track_id": trackID,
			"pitch": fmt.Sprintf("Soak pitch %s-%d", w.runID, w.seq.Add(1))},
		header: rest(http.MethodPost, "Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json")})
	if err != nil {
		// Whatever the answer, the pair may hold a pending invite (a 409
		// says it does): the next invite of the pair withdraws first.
		return err
	}
	if err := json.Unmarshal(b, &inv); err != nil {
		return err
	}
	_, err = w.api.do(ctx, call{kind: "rest: rpc respond_to_invite", method: http.MethodPost, path: "/rest/v1/rpc/respond_to_invite",
		token: a.access, ip: a.ip, json: map[string]any{"p_invite_id": inv.ID, "p_accept": false},
		header: rest(http.MethodPost), want: http.StatusOK, check: successIs("success")})
	// Only a declined invite is gone; a refused or lost answer leaves it
	// pending.
	if err == nil {
		w.setInviteOpen(pair, false)
	}
	return err
}

// unsponsoredTrack picks one of the artist's tracks no sponsor holds ("" if
// there is none). Declined invites never sponsor it, so the seed's choice
// stays valid for the whole run.
func unsponsoredTrack(w *world, artistID string, rng *rand.Rand) string {
	var ids []string
	for _, t := range w.tracks {
		if t.ArtistID == artistID && !t.IsSponsored && t.SponsorID == nil {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[rng.IntN(len(ids))]
}

func (w *world) setInviteOpen(pair [2]string, open bool) {
	w.invitesMu.Lock()
	defer w.invitesMu.Unlock()
	if open {
		w.invitesOpen[pair] = true
	} else {
		delete(w.invitesOpen, pair)
	}
}

// notifyFan is the back office telling a fan something: the service role
// inserts a notification through REST, as a server-side job holding the
// service key would.
func notifyFan(ctx context.Context, w *world, rng *rand.Rand) error {
	u := take(w.fans)
	if u == nil {
		return browse(ctx, w, rng)
	}
	defer w.release(u)
	return w.insertNotification(ctx, u.id, "Soak: a word from Backline")
}

// insertNotification inserts one system notification for uid.
func (w *world) insertNotification(ctx context.Context, uid, title string) error {
	_, err := w.api.do(ctx, call{kind: "rest: insert notification (service role)", method: http.MethodPost,
		path: "/rest/v1/notifications", key: w.api.service, token: w.api.service, ip: w.nextIP(), want: http.StatusCreated,
		json: map[string]any{"user_id": uid, "type": "system_update", "title": title,
			"message": fmt.Sprintf("Notice %s-%d", w.runID, w.seq.Add(1)), "data": map[string]any{"soak": w.runID}},
		header: rest(http.MethodPost, "Prefer", "return=minimal")})
	return err
}
