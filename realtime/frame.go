package realtime

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Protocol versions a client picks with the vsn query parameter.
const (
	vsn1 = "1.0.0" // JSON object text frames
	vsn2 = "2.0.0" // JSON array text frames plus binary user broadcasts
)

// Binary frame kinds of the vsn 2.0.0 serializer. Realtime-js decodes only
// kind 4, so the server never sends 0, 1 or 2.
const (
	kindUserBroadcastPush = 3 // client to server: channel.send() broadcast
	kindUserBroadcast     = 4 // server to client: a user broadcast
)

// Payload encodings of the binary user broadcast frames.
const (
	encodingBinary = 0
	encodingJSON   = 1
)

// jsonNull is the encoding of an absent ref.
var jsonNull = json.RawMessage("null")

// message is one decoded client frame. Refs keep the exact JSON the client
// sent (a string, a number or null) so replies echo them byte for byte; nil
// means null.
type message struct {
	JoinRef json.RawMessage
	Ref     json.RawMessage
	Topic   string
	Event   string
	Payload json.RawMessage // the JSON payload; nil for a binary broadcast
	// Broadcast is set for a kind-3 binary push (event "broadcast").
	Broadcast *userBroadcast
}

// userBroadcast is a broadcast whose payload travels outside JSON: the
// user event, how the payload is encoded and its bytes. Metadata is the
// push's metadata JSON object (empty when none).
type userBroadcast struct {
	Event    string
	Encoding byte
	Payload  []byte
	Metadata []byte
}

// errFrame is wrapped by every decoding failure; the connection logs it and
// ignores the frame, as the reference does with malformed messages.
var errFrame = errors.New("malformed websocket message")

// decodeText decodes a text frame in the connection's protocol version.
func decodeText(vsn string, data []byte) (*message, error) {
	if vsn == vsn2 {
		return decodeV2(data)
	}
	return decodeV1(data)
}

// decodeV1 reads {"topic","event","payload","ref","join_ref"}.
func decodeV1(data []byte) (*message, error) {
	var m struct {
		Topic   *string         `json:"topic"`
		Event   *string         `json:"event"`
		Payload json.RawMessage `json:"payload"`
		Ref     json.RawMessage `json:"ref"`
		JoinRef json.RawMessage `json:"join_ref"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", errFrame, err)
	}
	if m.Topic == nil || m.Event == nil {
		return nil, fmt.Errorf("%w: topic and event are required", errFrame)
	}
	return &message{JoinRef: nullable(m.JoinRef), Ref: nullable(m.Ref), Topic: *m.Topic,
		Event: *m.Event, Payload: m.Payload}, nil
}

// decodeV2 reads [join_ref, ref, topic, event, payload].
func decodeV2(data []byte) (*message, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil || len(parts) < 5 {
		return nil, fmt.Errorf("%w: expected V2 array", errFrame)
	}
	var topic, event string
	if err := json.Unmarshal(parts[2], &topic); err != nil {
		return nil, fmt.Errorf("%w: topic must be a string", errFrame)
	}
	if err := json.Unmarshal(parts[3], &event); err != nil {
		return nil, fmt.Errorf("%w: event must be a string", errFrame)
	}
	return &message{JoinRef: nullable(parts[0]), Ref: nullable(parts[1]), Topic: topic,
		Event: event, Payload: parts[4]}, nil
}

// nullable maps an absent or null JSON value to nil.
func nullable(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, jsonNull) {
		return nil
	}
	return raw
}

// decodeBinary reads a vsn 2.0.0 binary frame. Only kind 3 comes from
// realtime-js; anything else is malformed.
func decodeBinary(data []byte) (*message, error) {
	if len(data) < 7 || data[0] != kindUserBroadcastPush {
		return nil, fmt.Errorf("%w: unknown binary frame", errFrame)
	}
	sizes := data[1:6]
	enc := data[6]
	rest := data[7:]
	fields := make([][]byte, 5)
	for i, n := range sizes {
		if int(n) > len(rest) {
			return nil, fmt.Errorf("%w: binary frame shorter than its header", errFrame)
		}
		fields[i], rest = rest[:n], rest[n:]
	}
	if enc != encodingBinary && enc != encodingJSON {
		return nil, fmt.Errorf("%w: unknown payload encoding %d", errFrame, enc)
	}
	if enc == encodingJSON && !json.Valid(rest) {
		return nil, fmt.Errorf("%w: broadcast payload is not JSON", errFrame)
	}
	meta := fields[4]
	if len(meta) > 0 {
		var m map[string]any
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, fmt.Errorf("%w: broadcast metadata is not a JSON object", errFrame)
		}
	}
	for _, f := range fields[:4] {
		if !utf8.Valid(f) {
			return nil, fmt.Errorf("%w: binary frame strings must be UTF-8", errFrame)
		}
	}
	m := &message{Topic: string(fields[2]), Event: "broadcast", Broadcast: &userBroadcast{
		Event: string(fields[3]), Encoding: enc, Payload: rest, Metadata: meta}}
	if len(fields[0]) > 0 {
		m.JoinRef = quote(string(fields[0]))
	}
	if len(fields[1]) > 0 {
		m.Ref = quote(string(fields[1]))
	}
	return m, nil
}

// quote encodes s as a JSON string.
func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// frame is one server message as it goes on the wire: the websocket frame
// header (unmasked, as a server sends it) followed by the payload. A
// message fanned out to a topic is encoded once and the same bytes are
// queued on every subscriber's socket; nothing writes to them afterwards.
type frame struct {
	wire []byte
	hdr  int // header length: the payload is wire[hdr:]
}

// payload is the message inside the frame.
func (f frame) payload() []byte { return f.wire[f.hdr:] }

// maxHeader is the longest websocket frame header a server writes (no
// mask): 2 bytes, plus 8 for a 64-bit length.
const maxHeader = 10

// Websocket opcodes of the frames the writer sends (RFC 6455, 5.2).
const (
	opText   = 0x1
	opBinary = 0x2
)

// newBuffer starts an encoding with room for the frame header in front.
func newBuffer(size int) *bytes.Buffer {
	b := bytes.NewBuffer(make([]byte, maxHeader, maxHeader+size))
	return b
}

// finish puts the header in front of the payload written after
// newBuffer's reserved room and returns the frame, without copying the
// payload.
func finish(b []byte, opcode byte) frame {
	n := len(b) - maxHeader
	var h [maxHeader]byte
	h[0] = 0x80 | opcode // FIN: every message is one frame
	hl := 2
	switch {
	case n < 126:
		h[1] = byte(n)
	case n <= 0xffff:
		h[1] = 126
		binary.BigEndian.PutUint16(h[2:], uint16(n))
		hl = 4
	default:
		h[1] = 127
		binary.BigEndian.PutUint64(h[2:], uint64(n))
		hl = 10
	}
	start := maxHeader - hl
	copy(b[start:], h[:hl])
	return frame{wire: b[start:], hdr: hl}
}

// encodeText encodes a server message for a text frame. v1 objects carry no
// join_ref, as Phoenix's V1 serializer; v2 arrays always do.
func encodeText(vsn string, joinRef, ref json.RawMessage, topic, event string, payload json.RawMessage) frame {
	b := newBuffer(len(topic) + len(event) + len(payload) + 48)
	if vsn == vsn2 {
		b.WriteByte('[')
		writeRaw(b, joinRef)
		b.WriteByte(',')
		writeRaw(b, ref)
		b.WriteByte(',')
		writeString(b, topic)
		b.WriteByte(',')
		writeString(b, event)
		b.WriteByte(',')
		b.Write(payload)
		b.WriteByte(']')
		return finish(b.Bytes(), opText)
	}
	b.WriteString(`{"topic":`)
	writeString(b, topic)
	b.WriteString(`,"event":`)
	writeString(b, event)
	b.WriteString(`,"payload":`)
	b.Write(payload)
	b.WriteString(`,"ref":`)
	writeRaw(b, ref)
	b.WriteByte('}')
	return finish(b.Bytes(), opText)
}

func writeRaw(b *bytes.Buffer, raw json.RawMessage) {
	if raw == nil {
		b.WriteString("null")
		return
	}
	b.Write(raw)
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(b *bytes.Buffer, s string) {
	if plainASCII(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// plainASCII reports whether s is printable ASCII with nothing JSON
// escapes: its JSON string is s in quotes. Topics and event names nearly
// always are, and skip the encoder.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// encodeUserBroadcast builds a kind-4 frame; ok is false when a field is
// over the one-byte length limit (the caller then falls back to JSON).
func encodeUserBroadcast(topic string, ub *userBroadcast, meta []byte) (frame, bool) {
	if len(topic) > 255 || len(ub.Event) > 255 || len(meta) > 255 {
		return frame{}, false
	}
	b := make([]byte, maxHeader, maxHeader+5+len(topic)+len(ub.Event)+len(meta)+len(ub.Payload))
	b = append(b, kindUserBroadcast, byte(len(topic)), byte(len(ub.Event)), byte(len(meta)), ub.Encoding)
	b = append(b, topic...)
	b = append(b, ub.Event...)
	b = append(b, meta...)
	b = append(b, ub.Payload...)
	return finish(b, opBinary), true
}

// encodeUserBroadcastPush builds a kind-3 frame as realtime-js sends it; the
// tests and the benchmark use it to act as the client.
func encodeUserBroadcastPush(joinRef, ref, topic string, ub *userBroadcast) []byte {
	b := []byte{kindUserBroadcastPush, byte(len(joinRef)), byte(len(ref)), byte(len(topic)),
		byte(len(ub.Event)), byte(len(ub.Metadata)), ub.Encoding}
	b = append(b, joinRef...)
	b = append(b, ref...)
	b = append(b, topic...)
	b = append(b, ub.Event...)
	b = append(b, ub.Metadata...)
	return append(b, ub.Payload...)
}
