package realtime_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/realtime"
)

// The policies supabase-js's own integration suite uses.
const privateSQL = `
CREATE POLICY "read" ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() LIKE '%channel%' AND realtime.messages.extension IN ('broadcast', 'presence'));
CREATE POLICY "write" ON realtime.messages FOR INSERT TO authenticated
  WITH CHECK (realtime.topic() LIKE '%channel%');`

func privateJoin(token string, extra map[string]any) map[string]any {
	cfg := map[string]any{"private": true, "broadcast": map[string]any{"ack": true}}
	for k, v := range extra {
		cfg[k] = v
	}
	return map[string]any{"config": cfg, "access_token": token}
}

// TestPrivateChannels checks Realtime Authorization: joins decided by the
// SELECT policies of realtime.messages, broadcasts by the INSERT policy,
// the private namespace kept apart from the public one, and messages sent
// from SQL with realtime.send, replayed on a later join.
func TestPrivateChannels(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	ctx := context.Background()
	if _, err := b.db.Admin.Exec(ctx, privateSQL); err != nil {
		t.Fatal(err)
	}
	user := b.token(t, "authenticated", userA, time.Hour)

	denied := b.dial(t, "2.0.0")
	got := denied.join("1", "realtime:my-channel", privateJoin(b.keys.AnonKey, nil))
	if want := `["1","1","realtime:my-channel","phx_reply",{"status":"error","response":{"reason":"Unauthorized: You do not have permissions to read from this Channel topic: my-channel"}}]`; got != want {
		t.Errorf("anon join = %s, want %s", got, want)
	}
	if got := denied.join("2", "realtime:secret", privateJoin(user, nil)); !strings.Contains(got, `"reason":"Unauthorized: You do not have permissions to read from this Channel topic: secret"`) {
		t.Errorf("topic outside the policy = %s", got)
	}

	a := b.dial(t, "2.0.0")
	if got := a.join("1", "realtime:my-channel", privateJoin(user, nil)); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("authorized join = %s", got)
	}
	listener := b.dial(t, "1.0.0")
	listener.join("1", "realtime:my-channel", privateJoin(user, nil))
	public := b.dial(t, "1.0.0")
	public.join("1", "realtime:my-channel", map[string]any{"config": map[string]any{}})

	a.push("1", "2", "realtime:my-channel", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{"n": 1}})
	if got := a.next(); got != `["1","2","realtime:my-channel","phx_reply",{"status":"ok","response":{}}]` {
		t.Errorf("ack = %s", got)
	}
	listener.expect(`"event":"broadcast"`, `"payload":{"n":1}`)

	// From SQL: stored, then delivered to the private subscribers only.
	if _, err := b.db.Admin.Exec(ctx, `SELECT realtime.send('{"from":"sql"}', 'db', 'my-channel', true)`); err != nil {
		t.Fatal(err)
	}
	msg := listener.expect(`"event":"db"`)
	if !strings.Contains(msg, `"from":"sql"`) || !strings.Contains(msg, `"meta":{"id":"`) {
		t.Errorf("realtime.send delivered %s", msg)
	}
	// From a row trigger with realtime.broadcast_changes.
	if _, err := b.db.Admin.Exec(ctx, `
		CREATE TABLE public.items (id int PRIMARY KEY, name text);
		CREATE FUNCTION public.items_broadcast() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  PERFORM realtime.broadcast_changes('my-channel', TG_OP, TG_OP, TG_TABLE_NAME, TG_TABLE_SCHEMA, NEW, OLD);
		  RETURN NULL;
		END $$;
		CREATE TRIGGER items_broadcast AFTER INSERT ON public.items FOR EACH ROW EXECUTE FUNCTION public.items_broadcast();
		INSERT INTO public.items VALUES (7, 'seven');`); err != nil {
		t.Fatal(err)
	}
	msg = listener.expect(`"event":"INSERT"`)
	for _, part := range []string{`"operation":"INSERT"`, `"record":{"id":7,"name":"seven"}`, `"old_record":null`, `"table":"items"`, `"schema":"public"`} {
		if !strings.Contains(msg, part) {
			t.Errorf("broadcast_changes delivered %s, want %s", msg, part)
		}
	}
	// A public broadcast of the same name reaches only the public channel:
	// its next message is this one, not the private ones above.
	if _, err := b.db.Admin.Exec(ctx, `SELECT realtime.send('{"to":"public"}', 'pub', 'my-channel', false)`); err != nil {
		t.Fatal(err)
	}
	if got := public.expect(`"event":"broadcast"`); !strings.Contains(got, `"event":"pub"`) {
		t.Errorf("public channel got %s first", got)
	}

	// A token the read policy refuses closes the channel.
	a.push("1", "8", "realtime:my-channel", "access_token", map[string]any{"access_token": b.token(t, "anon", "", time.Hour)})
	if got, want := a.expect(`"system"`), `["1",null,"realtime:my-channel","system",{"channel":"my-channel","extension":"system","message":"You do not have permissions to read from this Channel topic: my-channel","status":"error"}]`; got != want {
		t.Errorf("after a refused token: %s, want %s", got, want)
	}
	if got := a.next(); got != `["1","1","realtime:my-channel","phx_close",{}]` {
		t.Errorf("close = %s", got)
	}

	// Replay: a later join asks for stored messages since the epoch.
	late := b.dial(t, "2.0.0")
	late.join("1", "realtime:my-channel", privateJoin(user, map[string]any{
		"broadcast": map[string]any{"replay": map[string]any{"since": 0, "limit": 10}}}))
	replayed := late.expect(`"event":"db"`)
	if !strings.HasPrefix(replayed, `["1",null,"realtime:my-channel","broadcast",`) {
		t.Errorf("replayed message not pushed on the channel: %s", replayed)
	}
	if !strings.Contains(replayed, `"meta":{"id":"`) || !strings.Contains(replayed, `"replayed":true`) {
		t.Errorf("replayed %s", replayed)
	}
	if got := late.join("2", "realtime:open", map[string]any{"config": map[string]any{
		"broadcast": map[string]any{"replay": map[string]any{"since": 0}}}}); !strings.Contains(got, `"UnableToReplayMessages: Replay is not allowed for public channels"`) {
		t.Errorf("public replay = %s", got)
	}
}

// TestPrivateBroadcastWithoutWrite checks that a reader without the write
// policy has its broadcasts dropped with no reply, even with ack.
func TestPrivateBroadcastWithoutWrite(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	if _, err := b.db.Admin.Exec(context.Background(), `
		CREATE POLICY "read" ON realtime.messages FOR SELECT TO authenticated USING (true);`); err != nil {
		t.Fatal(err)
	}
	user := b.token(t, "authenticated", userA, time.Hour)
	a := b.dial(t, "2.0.0")
	a.join("1", "realtime:ro", privateJoin(user, nil))
	other := b.dial(t, "2.0.0")
	other.join("1", "realtime:ro", privateJoin(user, nil))
	a.push("1", "2", "realtime:ro", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}})
	// The sender's heartbeat is answered once its broadcast was handled (and
	// relayed, had it been allowed); the other reader's, once everything
	// relayed to it has been read.
	if got := a.roundTrip("3"); len(got) != 0 {
		t.Errorf("the sender got %q, want no ack", got)
	}
	if got := other.roundTrip("2"); len(got) != 0 {
		t.Errorf("the other reader got %q, want nothing", got)
	}
}

// TestPresenceKeyIsTheCaller checks that presence on a private channel is
// tracked under the joiner's sub, whatever key the join asked for: an
// anonymous client may not track at all, and a signed-in one who asks for
// another user's key appears as themselves. A new token of another user
// takes the old user's presence away.
func TestPresenceKeyIsTheCaller(t *testing.T) {
	t.Parallel()
	b := setup(t, realtime.Config{PostgresChanges: false})
	if _, err := b.db.Admin.Exec(context.Background(), `
		CREATE POLICY "read" ON realtime.messages FOR SELECT TO anon, authenticated USING (realtime.topic() = 'online-users');
		CREATE POLICY "write" ON realtime.messages FOR INSERT TO anon, authenticated WITH CHECK (realtime.topic() = 'online-users');`); err != nil {
		t.Fatal(err)
	}
	const userC = "00000000-0000-0000-0000-00000000000c"
	const userD = "00000000-0000-0000-0000-00000000000d"
	join := func(token, key string) map[string]any {
		return privateJoin(token, map[string]any{"presence": map[string]any{"enabled": true, "key": key}})
	}
	track := map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"user_id": userA}}

	watcher := b.dial(t, "2.0.0")
	if got := watcher.join("1", "realtime:online-users", join(b.token(t, "authenticated", userB, time.Hour), userB)); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("watcher's join = %s", got)
	}
	watcher.expect(`"presence_state"`)

	anon := b.dial(t, "2.0.0")
	if got := anon.join("1", "realtime:online-users", join(b.keys.AnonKey, userA)); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("anonymous join = %s", got)
	}
	anon.push("1", "2", "realtime:online-users", "presence", track)
	if got := anon.expect(`"phx_reply"`); got != `["1","2","realtime:online-users","phx_reply",{"status":"error","response":{}}]` {
		t.Errorf("anonymous track = %s", got)
	}

	forger := b.dial(t, "2.0.0")
	forger.join("1", "realtime:online-users", join(b.token(t, "authenticated", userC, time.Hour), userA))
	forger.push("1", "2", "realtime:online-users", "presence", track)
	if got := forger.expect(`"phx_reply"`); !strings.Contains(got, `"status":"ok"`) {
		t.Errorf("signed-in track = %s", got)
	}
	// The watcher's first diff is the signed-in user's, under their own id:
	// neither the anonymous track nor the asked-for key shows.
	if got := watcher.expect(`"presence_diff"`); !strings.Contains(got, `"joins":{"`+userC+`":{"metas":[{"user_id":"`+userA+`"`) {
		t.Errorf("watcher's first diff = %s, want %s joining", got, userC)
	}

	forger.push("1", "3", "realtime:online-users", "access_token", map[string]any{"access_token": b.token(t, "authenticated", userD, time.Hour)})
	if got := watcher.expect(`"presence_diff"`); !strings.Contains(got, `"joins":{},"leaves":{"`+userC+`"`) {
		t.Errorf("after another user's token, diff = %s, want %s leaving", got, userC)
	}
	forger.push("1", "4", "realtime:online-users", "presence", track)
	if got := watcher.expect(`"presence_diff"`); !strings.Contains(got, `"joins":{"`+userD+`"`) {
		t.Errorf("the new user's track = %s, want %s joining", got, userD)
	}
}

// TestReauthorizeUser takes a user's access away and calls
// realtime.reauthorize_user in the same transaction: the user's private
// channel, on another node, is closed as the reference closes a channel
// whose permissions were revoked (a system error, then phx_close); another
// user's channel stays, and the user's next join is refused.
func TestReauthorizeUser(t *testing.T) {
	t.Parallel()
	n1 := setup(t, realtime.Config{PostgresChanges: false, ErrorBackoff: time.Millisecond})
	n2 := node(t, n1.db, n1.keys, realtime.Config{PostgresChanges: false, ErrorBackoff: time.Millisecond})
	ctx := context.Background()
	if _, err := n1.db.Admin.Exec(ctx, `
		CREATE TABLE public.banned (user_id uuid PRIMARY KEY);
		GRANT SELECT ON public.banned TO authenticated;
		CREATE POLICY "read" ON realtime.messages FOR SELECT TO authenticated
		  USING (realtime.topic() = 'room' AND NOT EXISTS (SELECT 1 FROM public.banned WHERE user_id = auth.uid()));
		CREATE POLICY "write" ON realtime.messages FOR INSERT TO authenticated
		  WITH CHECK (realtime.topic() = 'room' AND NOT EXISTS (SELECT 1 FROM public.banned WHERE user_id = auth.uid()));`); err != nil {
		t.Fatal(err)
	}
	a := n2.dial(t, "2.0.0")
	if got := a.join("1", "realtime:room", privateJoin(n1.token(t, "authenticated", userA, time.Hour), nil)); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("a's join = %s", got)
	}
	b := n1.dial(t, "2.0.0")
	if got := b.join("1", "realtime:room", privateJoin(n1.token(t, "authenticated", userB, time.Hour), nil)); !strings.Contains(got, `"status":"ok"`) {
		t.Fatalf("b's join = %s", got)
	}
	// Without the call nothing is re-checked: after the ban alone, a's
	// broadcasts are still acknowledged (the write policy ran at the first).
	for i, ban := range []bool{false, true} {
		if ban {
			if _, err := n1.db.Admin.Exec(ctx, `INSERT INTO public.banned VALUES ($1)`, userA); err != nil {
				t.Fatal(err)
			}
		}
		ref := strconv.Itoa(i + 2)
		a.push("1", ref, "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}})
		if got := a.next(); got != `["1","`+ref+`","realtime:room","phx_reply",{"status":"ok","response":{}}]` {
			t.Fatalf("a's broadcast before the call = %s", got)
		}
	}
	if _, err := n1.db.Admin.Exec(ctx, `SELECT realtime.reauthorize_user($1)`, userA); err != nil {
		t.Fatal(err)
	}
	if got, want := a.next(), `["1",null,"realtime:room","system",{"channel":"room","extension":"system","message":"You do not have permissions to read from this Channel topic: room","status":"error"}]`; got != want {
		t.Errorf("a got %s, want %s", got, want)
	}
	if got, want := a.next(), `["1","1","realtime:room","phx_close",{}]`; got != want {
		t.Errorf("a got %s, want %s", got, want)
	}
	if got := a.join("3", "realtime:room", privateJoin(n1.token(t, "authenticated", userA, time.Hour), nil)); !strings.Contains(got, `"reason":"Unauthorized: You do not have permissions to read from this Channel topic: room"`) {
		t.Errorf("a's next join = %s", got)
	}
	// b's channel stays: its broadcasts are still acknowledged.
	b.push("1", "2", "realtime:room", "broadcast", map[string]any{"type": "broadcast", "event": "e", "payload": map[string]any{}})
	if got := b.expect(`"phx_reply"`); got != `["1","2","realtime:room","phx_reply",{"status":"ok","response":{}}]` {
		t.Errorf("b's broadcast after a was closed = %s", got)
	}
	// Only the service role may ask.
	if _, err := n1.db.User.Exec(ctx, `SET ROLE authenticated; SELECT realtime.reauthorize_user(gen_random_uuid())`); err == nil {
		t.Error("an authenticated caller may call realtime.reauthorize_user")
	}
}
