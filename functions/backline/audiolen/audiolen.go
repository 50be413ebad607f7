// Package audiolen measures how long an audio file plays, from its bytes:
// WAV, MP3, FLAC, Ogg (Vorbis, Opus) and MP4/M4A. It reads container
// headers (and, for MP3 without a VBR header, the frames), never decodes
// audio. Backline uses it so a track's duration is the server's
// measurement, not the uploader's claim.
package audiolen

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// ErrUnknown is returned for bytes that are not a supported audio file, or
// whose length cannot be read from them.
var ErrUnknown = errors.New("audiolen: not a supported audio file")

// Seconds returns the playing time of the audio file b.
func Seconds(b []byte) (float64, error) {
	var s float64
	var err error
	switch {
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		s, err = wav(b)
	case len(b) >= 4 && string(b[0:4]) == "fLaC":
		s, err = flac(b)
	case len(b) >= 4 && string(b[0:4]) == "OggS":
		s, err = ogg(b)
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		s, err = mp4(b)
	default:
		s, err = mp3(b)
	}
	if err != nil {
		return 0, err
	}
	if !(s > 0) || s > 24*3600 {
		return 0, ErrUnknown
	}
	return s, nil
}

// wav divides the data chunk's size by the format's bytes per second.
func wav(b []byte) (float64, error) {
	var byteRate uint32
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:off+8]))
		body := off + 8
		switch id {
		case "fmt ":
			if body+12 > len(b) {
				return 0, ErrUnknown
			}
			byteRate = binary.LittleEndian.Uint32(b[body+8 : body+12])
		case "data":
			if byteRate == 0 {
				return 0, ErrUnknown
			}
			// A streamed WAV may claim more data than it holds.
			size = min(size, len(b)-body)
			return float64(size) / float64(byteRate), nil
		}
		off = body + size + size%2
	}
	return 0, ErrUnknown
}

// flac reads total samples and the sample rate from STREAMINFO.
func flac(b []byte) (float64, error) {
	// "fLaC", a 4-byte block header, then STREAMINFO: rate in bits 80..99,
	// total samples in bits 108..143 of the block.
	if len(b) < 8+18 || b[4]&0x7f != 0 {
		return 0, ErrUnknown
	}
	si := b[8:]
	rate := uint32(si[10])<<12 | uint32(si[11])<<4 | uint32(si[12])>>4
	total := uint64(si[13]&0x0f)<<32 | uint64(binary.BigEndian.Uint32(si[14:18]))
	if rate == 0 || total == 0 {
		return 0, ErrUnknown
	}
	return float64(total) / float64(rate), nil
}

// ogg divides the last page's granule position by the stream's rate
// (Vorbis: from its identification header; Opus: always 48 kHz, less the
// pre-skip).
func ogg(b []byte) (float64, error) {
	if len(b) < 28 {
		return 0, ErrUnknown
	}
	// The first packet follows the first page's segment table.
	segs := int(b[26])
	if 27+segs > len(b) {
		return 0, ErrUnknown
	}
	pkt := b[27+segs:]
	var rate float64
	var preSkip uint16
	switch {
	case len(pkt) >= 16 && string(pkt[1:7]) == "vorbis":
		rate = float64(binary.LittleEndian.Uint32(pkt[12:16]))
	case len(pkt) >= 12 && string(pkt[0:8]) == "OpusHead":
		rate, preSkip = 48000, binary.LittleEndian.Uint16(pkt[10:12])
	default:
		return 0, ErrUnknown
	}
	last := bytes.LastIndex(b, []byte("OggS"))
	if rate == 0 || last < 0 || last+14 > len(b) {
		return 0, ErrUnknown
	}
	granule := int64(binary.LittleEndian.Uint64(b[last+6 : last+14]))
	if granule <= int64(preSkip) {
		return 0, ErrUnknown
	}
	return float64(granule-int64(preSkip)) / rate, nil
}

// mp4 reads the movie header's duration and time scale.
func mp4(b []byte) (float64, error) {
	moov := box(b, "moov")
	if moov == nil {
		return 0, ErrUnknown
	}
	h := box(moov, "mvhd")
	switch {
	case len(h) >= 20 && h[0] == 0:
		scale, d := binary.BigEndian.Uint32(h[12:16]), binary.BigEndian.Uint32(h[16:20])
		if scale > 0 {
			return float64(d) / float64(scale), nil
		}
	case len(h) >= 32 && h[0] == 1:
		scale, d := binary.BigEndian.Uint32(h[20:24]), binary.BigEndian.Uint64(h[24:32])
		if scale > 0 {
			return float64(d) / float64(scale), nil
		}
	}
	return 0, ErrUnknown
}

// box returns the body of the first child box named name in b.
func box(b []byte, name string) []byte {
	for off := 0; off+8 <= len(b); {
		size := int64(binary.BigEndian.Uint32(b[off : off+4]))
		head := int64(8)
		switch size {
		case 0:
			size = int64(len(b) - off)
		case 1:
			if off+16 > len(b) {
				return nil
			}
			size, head = int64(binary.BigEndian.Uint64(b[off+8:off+16])), 16
		}
		if size < head || int64(off)+size > int64(len(b)) {
			return nil
		}
		if string(b[off+4:off+8]) == name {
			return b[int64(off)+head : int64(off)+size]
		}
		off += int(size)
	}
	return nil
}
