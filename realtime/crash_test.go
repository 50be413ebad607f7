package realtime

import (
	"encoding/json"
	"log/slog"
	"testing"
)

// TestChannelCrashSendsPhxError checks that a panic while handling a
// channel's message stops that channel and sends phx_error with the join
// ref, leaving the socket's other channels alone.
func TestChannelCrashSendsPhxError(t *testing.T) {
	t.Parallel()
	// No clock and no counters: handling a presence push panics.
	s := &Service{cfg: Config{MaxQueueBytes: 1 << 20}, log: slog.New(slog.DiscardHandler), hub: newHub()}
	// writing: a writer is busy, so what is sent stays in the queue.
	c := &conn{s: s, vsn: vsn2, writing: true, channels: map[string]*channel{}}
	for _, topic := range []string{"realtime:bad", "realtime:ok"} {
		ch := &channel{c: c, topic: topic, key: tkey{topic: topic}, joinRef: json.RawMessage(`"7"`)}
		c.channels[topic] = ch
		s.hub.subscribe(ch)
	}
	c.handle(&message{JoinRef: json.RawMessage(`"7"`), Ref: json.RawMessage(`"8"`), Topic: "realtime:bad",
		Event: "presence", Payload: json.RawMessage(`{"type":"presence","event":"track","payload":{}}`)})
	if len(c.queue) != 1 || string(c.queue[0].payload()) != `["7","7","realtime:bad","phx_error",{}]` {
		t.Fatalf("queue %v, want one phx_error", c.queue)
	}
	if c.channels["realtime:bad"] != nil || c.channels["realtime:ok"] == nil {
		t.Errorf("channels after the crash: %v", c.channels)
	}
}
