package audiolen

import (
	"encoding/binary"
)

// MPEG audio frame header tables (ISO 11172-3, 13818-3).
var (
	// bitrates[version row][layer-1][index], kbit/s; row 0 is MPEG-1,
	// row 1 MPEG-2 and 2.5.
	bitrates = [2][3][16]int{
		{{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
			{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}},
		{{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}},
	}
	// sampleRates by version bits (0: 2.5, 2: 2, 3: 1).
	sampleRates = map[byte][3]int{0: {11025, 12000, 8000}, 2: {22050, 24000, 16000}, 3: {44100, 48000, 32000}}
)

// frame is one parsed MPEG audio frame header.
type frame struct {
	size, samples, rate int
	mpeg1, mono         bool
}

func parseFrame(h []byte) (frame, bool) {
	if len(h) < 4 || h[0] != 0xff || h[1]&0xe0 != 0xe0 {
		return frame{}, false
	}
	version, layerBits := (h[1]>>3)&3, (h[1]>>1)&3
	bIdx, rIdx, pad := h[2]>>4, (h[2]>>2)&3, int(h[2]>>1)&1
	if version == 1 || layerBits == 0 || bIdx == 0 || bIdx == 15 || rIdx == 3 {
		return frame{}, false
	}
	layer := 4 - int(layerBits)
	row := 1
	if version == 3 {
		row = 0
	}
	f := frame{rate: sampleRates[version][rIdx], mpeg1: version == 3, mono: h[3]>>6 == 3}
	kbps := bitrates[row][layer-1][bIdx]
	switch {
	case layer == 1:
		f.samples, f.size = 384, (12*kbps*1000/f.rate+pad)*4
	case layer == 3 && !f.mpeg1:
		f.samples, f.size = 576, 72*kbps*1000/f.rate+pad
	default:
		f.samples, f.size = 1152, 144*kbps*1000/f.rate+pad
	}
	return f, f.size > 4
}

// mp3 skips an ID3v2 tag, then uses the first frame's Xing/Info or VBRI
// frame count, or else counts every frame.
func mp3(b []byte) (float64, error) {
	off := 0
	if len(b) >= 10 && string(b[0:3]) == "ID3" {
		size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
		off = 10 + size
		if b[5]&0x10 != 0 {
			off += 10 // footer
		}
	}
	// The first frame: a header followed by another header (two in a row
	// rule out a stray 0xFF in a tag's padding).
	var first frame
	for ; off+4 <= len(b); off++ {
		f, ok := parseFrame(b[off:])
		if !ok {
			continue
		}
		if _, ok := parseFrame(b[min(off+f.size, len(b)):]); ok || off+f.size == len(b) {
			first = f
			break
		}
	}
	if first.size == 0 {
		return 0, ErrUnknown
	}
	if n := vbrFrames(b[off:], first); n > 0 {
		return float64(n) * float64(first.samples) / float64(first.rate), nil
	}
	samples := 0
	for off+4 <= len(b) {
		f, ok := parseFrame(b[off:])
		if !ok || f.rate != first.rate {
			break
		}
		samples += f.samples
		off += f.size
	}
	return float64(samples) / float64(first.rate), nil
}

// vbrFrames reads the frame count of a Xing/Info or VBRI header in the
// first frame, or 0.
func vbrFrames(b []byte, f frame) int {
	// Side information length: MPEG-1 32 (stereo) or 17 (mono) bytes,
	// MPEG-2 and 2.5 17 or 9.
	side := map[[2]bool]int{{true, false}: 32, {true, true}: 17, {false, false}: 17, {false, true}: 9}[[2]bool{f.mpeg1, f.mono}]
	x := 4 + side
	if x+12 <= len(b) && (string(b[x:x+4]) == "Xing" || string(b[x:x+4]) == "Info") && b[x+7]&1 != 0 {
		return int(binary.BigEndian.Uint32(b[x+8 : x+12]))
	}
	if v := 4 + 32; v+18 <= len(b) && string(b[v:v+4]) == "VBRI" {
		return int(binary.BigEndian.Uint32(b[v+14 : v+18]))
	}
	return 0
}
