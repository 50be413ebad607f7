package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// fanoutCase is one broadcast workload: one publisher, subs subscribers
// of its topic, and at most inflight messages sent but not yet received
// by every subscriber.
type fanoutCase struct {
	subs, inflight int
}

func (c fanoutCase) String() string {
	return fmt.Sprintf("1 → %d subscribers, %d in flight", c.subs, c.inflight)
}

// fanoutProto is how one server's clients join a topic, publish and read.
type fanoutProto interface {
	// dial opens a socket ready to publish (publisher) or receiving the
	// topic's messages (subscriber).
	dial(topic string, publisher bool) (*websocket.Conn, error)
	// publish writes one message carrying seq.
	publish(c *websocket.Conn, topic string, seq int64) error
	// seqs calls fn with the seq of every message in a frame a
	// subscriber read, in order; it answers the server's pings itself.
	seqs(c *websocket.Conn, typ int, frame []byte, fn func(seq int64)) error
}

// ring is how many recent messages the bookkeeping remembers; more than
// any in-flight window.
const ring = 4096

// runFanout drives one case against one server for d after warmup and
// checks that every subscriber received every message exactly once, in
// order. cpu and dbCPU read the server's and its database's CPU time
// (dbCPU may be nil).
func runFanout(ctx context.Context, proto fanoutProto, c fanoutCase, topic string, warmup, d time.Duration,
	cpu, dbCPU func() time.Duration) (result, error) {
	var res result
	pub, err := proto.dial(topic, true)
	if err != nil {
		return res, fmt.Errorf("publisher: %w", err)
	}
	defer pub.Close()
	subs := make([]*websocket.Conn, c.subs)
	for i := range subs {
		if subs[i], err = proto.dial(topic, false); err != nil {
			return res, fmt.Errorf("subscriber %d: %w", i, err)
		}
		defer subs[i].Close()
	}

	var (
		sentAt    [ring]atomic.Int64 // unix nanos each seq was sent at
		received  [ring]atomic.Int32 // subscribers that have each seq
		slots     = make(chan struct{}, c.inflight)
		measuring atomic.Bool
		closed    atomic.Bool  // the benchmark closes the sockets: read errors are expected
		delivered atomic.Int64 // while measuring
		failure   atomic.Value
		lat       = make([][]time.Duration, c.subs)
		wg        sync.WaitGroup
	)
	fail := func(err error) { failure.CompareAndSwap(nil, err) }
	for range c.inflight {
		slots <- struct{}{}
	}
	for i, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := int64(1)
			for {
				typ, frame, err := s.ReadMessage()
				if err != nil {
					if !closed.Load() {
						fail(fmt.Errorf("subscriber %d: read: %w", i, err))
					}
					return
				}
				now := time.Now().UnixNano()
				err = proto.seqs(s, typ, frame, func(seq int64) {
					if seq != next {
						fail(fmt.Errorf("subscriber %d: got message %d, expected %d (lost, duplicated or reordered)", i, seq, next))
						return
					}
					next++
					if measuring.Load() {
						delivered.Add(1)
						lat[i] = append(lat[i], time.Duration(now-sentAt[seq%ring].Load()))
					}
					if received[seq%ring].Add(1) == int32(c.subs) {
						received[seq%ring].Store(0)
						slots <- struct{}{}
					}
				})
				if err != nil {
					fail(fmt.Errorf("subscriber %d: %w", i, err))
					return
				}
			}
		}()
	}

	var sent atomic.Int64
	stop := make(chan struct{})
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for seq := int64(1); ; seq++ {
			select {
			case <-stop:
				return
			case <-slots:
			}
			sentAt[seq%ring].Store(time.Now().UnixNano())
			if err := proto.publish(pub, topic, seq); err != nil {
				fail(fmt.Errorf("publish: %w", err))
				return
			}
			sent.Store(seq)
		}
	}()

	time.Sleep(warmup)
	cpu0, db0 := cpu(), time.Duration(0)
	if dbCPU != nil {
		db0 = dbCPU()
	}
	t0 := time.Now()
	measuring.Store(true)
	time.Sleep(d)
	measuring.Store(false)
	res.Elapsed = time.Since(t0)
	cpu1 := cpu()
	if dbCPU != nil {
		res.DBCPU = dbCPU() - db0
	}
	res.Ops = delivered.Load()
	close(stop)
	<-pubDone

	// Every message sent must reach every subscriber: wait for the last
	// ones, then close the sockets to end the readers.
	last := sent.Load()
	deadline := time.Now().Add(10 * time.Second)
	for len(slots) < c.inflight && failure.Load() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(slots) < c.inflight && failure.Load() == nil {
		fail(fmt.Errorf("%d of the last %d messages did not reach every subscriber within 10 s (of %d sent)",
			c.inflight-len(slots), c.inflight, last))
	}
	closed.Store(true)
	for _, s := range subs {
		_ = s.Close()
	}
	wg.Wait()
	if f, ok := failure.Load().(error); ok {
		return res, f
	}
	if res.Ops == 0 {
		return res, errors.New("nothing delivered")
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	res.finish(cpu1-cpu0, all)
	return res, nil
}

// payloadPad makes a message the size of a small real broadcast (a cursor
// or a chat line).
const payloadPad = "0123456789abcdef0123"

// parseSeq reads the number after `"seq":` in a JSON message.
func parseSeq(b []byte) (int64, error) { return parseInt(b, "seq") }

// parseInt reads the number after the first `"name":` in a JSON message.
func parseInt(b []byte, name string) (int64, error) {
	key := `"` + name + `":`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0, fmt.Errorf("no %s in %q", name, b)
	}
	b = b[i+len(key):]
	j := 0
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return strconv.ParseInt(string(b[:j]), 10, 64)
}

// basaltFanout speaks realtime-js's vsn 2.0.0: joins with phx_join, the
// publisher sends the binary broadcast frame channel.send() emits (no
// ack, not to itself: realtime-js's defaults), subscribers receive the
// binary user broadcast.
type basaltFanout struct{ url string }

func (b basaltFanout) dial(topic string, _ bool) (*websocket.Conn, error) {
	c, _, err := websocket.DefaultDialer.Dial(b.url, nil)
	if err != nil {
		return nil, err
	}
	t := "realtime:" + topic
	join := fmt.Sprintf(`["1","1",%q,"phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":"","enabled":false},"postgres_changes":[],"private":false}}]`, t)
	if err := c.WriteMessage(websocket.TextMessage, []byte(join)); err != nil {
		_ = c.Close()
		return nil, err
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, reply, err := c.ReadMessage()
	if err != nil || !strings.Contains(string(reply), `"status":"ok"`) {
		_ = c.Close()
		return nil, fmt.Errorf("join: %s %v", reply, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, nil
}

func (b basaltFanout) publish(c *websocket.Conn, topic string, seq int64) error {
	t := "realtime:" + topic
	payload := `{"seq":` + strconv.FormatInt(seq, 10) + `,"pad":"` + payloadPad + `"}`
	f := make([]byte, 0, 16+len(t)+len(payload))
	f = append(f, 3, 1, 0, byte(len(t)), 6, 0, 1)
	f = append(f, '1')
	f = append(f, t...)
	f = append(f, "cursor"...)
	f = append(f, payload...)
	return c.WriteMessage(websocket.BinaryMessage, f)
}

func (b basaltFanout) seqs(c *websocket.Conn, typ int, frame []byte, fn func(int64)) error {
	// kind 4: topic, event and metadata lengths, encoding, then the fields.
	if typ != websocket.BinaryMessage || len(frame) < 5 || frame[0] != 4 {
		return fmt.Errorf("unexpected frame %q", frame)
	}
	seq, err := parseSeq(frame[5+int(frame[1])+int(frame[2])+int(frame[3]):])
	if err != nil {
		return err
	}
	fn(seq)
	return nil
}

// centrifugoFanout speaks Centrifugo's JSON protocol: connect, subscribe
// (subscribers only), publish from the client; the server may pack
// several replies and pushes into one frame, one JSON object a line, and
// pings with an empty object, which the client answers.
type centrifugoFanout struct{ url string }

func (cf centrifugoFanout) dial(topic string, publisher bool) (*websocket.Conn, error) {
	c, _, err := websocket.DefaultDialer.Dial(cf.url, nil)
	if err != nil {
		return nil, err
	}
	cmds := []string{`{"id":1,"connect":{"name":"bench"}}`}
	if !publisher {
		cmds = append(cmds, `{"id":2,"subscribe":{"channel":"`+topic+`"}}`)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i, cmd := range cmds {
		if err := c.WriteMessage(websocket.TextMessage, []byte(cmd)); err != nil {
			_ = c.Close()
			return nil, err
		}
		_, reply, err := c.ReadMessage()
		if err != nil || !bytes.HasPrefix(reply, []byte(`{"id":`+strconv.Itoa(i+1)+`,`)) || bytes.Contains(reply, []byte(`"error"`)) {
			_ = c.Close()
			return nil, fmt.Errorf("%s: %s %v", cmd, reply, err)
		}
	}
	_ = c.SetReadDeadline(time.Time{})
	if publisher {
		// Publish replies come back on the publisher's socket: drain them.
		go func() {
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}()
	}
	return c, nil
}

var centrifugoIDs atomic.Int64

func (cf centrifugoFanout) publish(c *websocket.Conn, topic string, seq int64) error {
	id := centrifugoIDs.Add(1) + 10
	msg := `{"id":` + strconv.FormatInt(id, 10) + `,"publish":{"channel":"` + topic + `","data":{"seq":` +
		strconv.FormatInt(seq, 10) + `,"pad":"` + payloadPad + `"}}}`
	return c.WriteMessage(websocket.TextMessage, []byte(msg))
}

func (cf centrifugoFanout) seqs(c *websocket.Conn, _ int, frame []byte, fn func(int64)) error {
	for _, line := range bytes.Split(frame, []byte("\n")) {
		switch {
		case len(line) == 0:
		case bytes.Equal(line, []byte("{}")):
			// A ping: answer with a pong (the subscriber writes nothing else).
			if err := c.WriteMessage(websocket.TextMessage, []byte("{}")); err != nil {
				return err
			}
		case bytes.HasPrefix(line, []byte(`{"push":`)):
			seq, err := parseSeq(line)
			if err != nil {
				return err
			}
			fn(seq)
		default:
			return fmt.Errorf("unexpected message %q", line)
		}
	}
	return nil
}
