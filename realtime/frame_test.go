package realtime

import (
	"bytes"
	"encoding/json"
	"testing"
)

// frameSeeds are decoder inputs from the contract's examples and the edge
// cases the decoder must refuse without panicking.
var frameSeeds = []struct {
	vsn    string
	binary bool
	data   string
}{
	{vsn2, false, `["1","1","realtime:room","phx_join",{"config":{}}]`},
	{vsn2, false, `[null,"5","phoenix","heartbeat",{}]`},
	{vsn2, false, `[1,2,"realtime:x","broadcast",{"type":"broadcast","event":"e","payload":{}}]`},
	{vsn2, false, `["1","1","realtime:room"]`},
	{vsn2, false, `{"topic":"x"}`},
	{vsn1, false, `{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"1"}`},
	{vsn1, false, `{"topic":"realtime:a","event":"phx_join","payload":{},"ref":"1","join_ref":"1"}`},
	{vsn1, false, `[null]`},
	{vsn2, true, "\x03\x01\x01\x0d\x06\x00\x01" + "1" + "3" + "realtime:room" + "cursor" + `{"x":1}`},
	{vsn2, true, "\x03\x01\x01\x0d\x06\x0f\x00" + "1" + "3" + "realtime:room" + "cursor" + `{"persist":true}` + "\x00\xff"},
	{vsn2, true, "\x03\xff\x01\x0d\x06\x00\x01"},
	{vsn2, true, "\x04\x01\x01\x00\x01ab{}"},
	{vsn2, true, ""},
}

// TestDecodeBinaryContractExample decodes the contract's kind-3 example.
func TestDecodeBinaryContractExample(t *testing.T) {
	t.Parallel()
	m, err := decodeBinary([]byte(frameSeeds[8].data))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.JoinRef) != `"1"` || string(m.Ref) != `"3"` || m.Topic != "realtime:room" || m.Event != "broadcast" ||
		m.Broadcast.Event != "cursor" || m.Broadcast.Encoding != encodingJSON || string(m.Broadcast.Payload) != `{"x":1}` {
		t.Errorf("decoded %+v %+v", m, m.Broadcast)
	}
	// Encoding it back as the client would gives the same bytes.
	again := encodeUserBroadcastPush("1", "3", m.Topic, m.Broadcast)
	if !bytes.Equal(again, []byte(frameSeeds[8].data)) {
		t.Errorf("round trip % x", again)
	}
}

// FuzzDecodeFrame feeds arbitrary frames to both versions' decoders: they
// never panic, and whatever decodes re-encodes to something that decodes to
// the same message.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add(s.vsn == vsn2, s.binary, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, v2, binary bool, data []byte) {
		vsn := vsn1
		if v2 {
			vsn = vsn2
		}
		var m *message
		var err error
		if binary {
			m, err = decodeBinary(data)
		} else {
			m, err = decodeText(vsn, data)
		}
		if err != nil {
			return
		}
		if m.Broadcast != nil {
			ub := m.Broadcast
			if ub.Encoding == encodingJSON && !json.Valid(ub.Payload) {
				t.Fatalf("JSON broadcast with invalid payload %q", ub.Payload)
			}
			jr, ref := unq(m.JoinRef), unq(m.Ref)
			again, err := decodeBinary(encodeUserBroadcastPush(jr, ref, m.Topic, ub))
			if err != nil || again.Topic != m.Topic || again.Broadcast.Event != ub.Event ||
				!bytes.Equal(again.Broadcast.Payload, ub.Payload) {
				t.Fatalf("binary round trip: %v %+v", err, again)
			}
			// A kind-4 frame of it carries the same fields at their offsets.
			if f, ok := encodeUserBroadcast(m.Topic, ub, nil); ok {
				d := f.payload()
				if d[0] != kindUserBroadcast || int(d[1]) != len(m.Topic) || int(d[2]) != len(ub.Event) ||
					!bytes.Equal(d[5+len(m.Topic)+len(ub.Event):], ub.Payload) {
					t.Fatalf("kind 4 frame % x", d)
				}
			}
			return
		}
		payload := m.Payload
		if len(payload) == 0 {
			payload = json.RawMessage("null")
		}
		// Server frames built from the decoded fields are valid JSON.
		out := encodeText(vsn, m.JoinRef, m.Ref, m.Topic, m.Event, payload)
		if !json.Valid(out.payload()) {
			t.Fatalf("encoded invalid JSON %s from %q", out.payload(), data)
		}
		if vsn == vsn2 {
			back, err := decodeV2(out.payload())
			if err != nil || back.Topic != m.Topic || back.Event != m.Event {
				t.Fatalf("v2 round trip %v %+v", err, back)
			}
		}
	})
}

func unq(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
