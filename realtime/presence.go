package realtime

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"sort"
)

// presenceState is one topic's presence: every tracked meta by key. A meta
// belongs to one channel on this node, or to a channel on another node
// (owner nil, node set) when presence is shared across nodes.
type presenceState struct {
	metas map[string][]*presenceMeta
}

// presenceMeta is one tracked presence: the user payload and its phx_ref.
type presenceMeta struct {
	owner   *channel
	node    string // owning node for remote metas
	ownerID string // channel id on the owning node
	ref     string
	prevRef string
	payload json.RawMessage // a JSON object
}

func newPresenceState() *presenceState {
	return &presenceState{metas: map[string][]*presenceMeta{}}
}

func (p *presenceState) empty() bool { return len(p.metas) == 0 }

// presenceDiff is what one change adds and removes, by key.
type presenceDiff struct {
	joins, leaves map[string][]*presenceMeta
}

func newDiff() *presenceDiff {
	return &presenceDiff{joins: map[string][]*presenceMeta{}, leaves: map[string][]*presenceMeta{}}
}

func (d *presenceDiff) empty() bool { return len(d.joins) == 0 && len(d.leaves) == 0 }

// find returns the meta a channel tracks under key.
func (p *presenceState) find(key string, match func(*presenceMeta) bool) (int, *presenceMeta) {
	for i, m := range p.metas[key] {
		if match(m) {
			return i, m
		}
	}
	return -1, nil
}

// track adds or replaces the meta matched by match. An update shows as a
// leave of the old meta and a join of the new one carrying phx_ref_prev,
// as Phoenix.Presence reports it.
func (p *presenceState) track(key string, nm *presenceMeta, match func(*presenceMeta) bool) *presenceDiff {
	d := newDiff()
	if i, old := p.find(key, match); old != nil {
		nm.prevRef = old.ref
		p.metas[key][i] = nm
		d.leaves[key] = []*presenceMeta{old}
	} else {
		p.metas[key] = append(p.metas[key], nm)
	}
	d.joins[key] = []*presenceMeta{nm}
	return d
}

// untrack removes every meta matched by match, under any key.
func (p *presenceState) untrack(match func(*presenceMeta) bool) *presenceDiff {
	d := newDiff()
	for key, ms := range p.metas {
		kept := ms[:0]
		for _, m := range ms {
			if match(m) {
				d.leaves[key] = append(d.leaves[key], m)
				continue
			}
			kept = append(kept, m)
		}
		if len(kept) == 0 {
			delete(p.metas, key)
		} else {
			p.metas[key] = kept
		}
	}
	return d
}

// stateJSON renders presence_state: {"key":{"metas":[…]}}.
func (p *presenceState) stateJSON() json.RawMessage {
	return groupJSON(p.metas)
}

// diffJSON renders presence_diff: {"joins":{…},"leaves":{…}}.
func (d *presenceDiff) diffJSON() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"joins":`)
	b.Write(groupJSON(d.joins))
	b.WriteString(`,"leaves":`)
	b.Write(groupJSON(d.leaves))
	b.WriteByte('}')
	return b.Bytes()
}

// groupJSON renders metas grouped by key, keys in order so output is stable.
func groupJSON(metas map[string][]*presenceMeta) json.RawMessage {
	keys := make([]string, 0, len(metas))
	for k := range metas {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteString(`:{"metas":[`)
		for j, m := range metas[k] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(m.metaJSON())
		}
		b.WriteString("]}")
	}
	b.WriteByte('}')
	return b.Bytes()
}

// metaJSON is the user payload merged with phx_ref (and phx_ref_prev).
func (m *presenceMeta) metaJSON() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	body := bytes.TrimSpace(m.payload)
	if len(body) >= 2 {
		inner := bytes.TrimSpace(body[1 : len(body)-1])
		if len(inner) > 0 {
			b.Write(inner)
			b.WriteByte(',')
		}
	}
	b.WriteString(`"phx_ref":`)
	writeString(&b, m.ref)
	if m.prevRef != "" {
		b.WriteString(`,"phx_ref_prev":`)
		writeString(&b, m.prevRef)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// newRef returns an opaque unique phx_ref.
func newRef() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return "F" + base64.RawURLEncoding.EncodeToString(b[:])
}
