package audiolen_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/basaltdev/basalt/functions/backline/audiolen"
)

func wav(seconds, rate int) []byte {
	n := rate * seconds
	b := make([]byte, 44+n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate))
	binary.LittleEndian.PutUint16(b[32:], 1)
	binary.LittleEndian.PutUint16(b[34:], 8)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(n))
	return b
}

// mp3CBR is n MPEG-1 layer III frames at 128 kbit/s, 44.1 kHz, stereo,
// behind an ID3v2 tag: 417 bytes and 1152 samples each.
func mp3CBR(n int, xing bool) []byte {
	var b bytes.Buffer
	b.Write([]byte{'I', 'D', '3', 4, 0, 0, 0, 0, 0, 20})
	b.Write(make([]byte, 20))
	for i := 0; i < n; i++ {
		f := make([]byte, 417)
		copy(f, []byte{0xff, 0xfb, 0x90, 0x00})
		if i == 0 && xing {
			copy(f[36:], "Xing")
			f[43] = 1 // frames field present
			binary.BigEndian.PutUint32(f[44:], 2000)
		}
		b.Write(f)
	}
	return b.Bytes()
}

func flac(rate, samples int) []byte {
	b := make([]byte, 8+34)
	copy(b, "fLaC")
	b[4], b[7] = 0x80, 34 // last block, STREAMINFO, length 34
	si := b[8:]
	si[10] = byte(rate >> 12)
	si[11] = byte(rate >> 4)
	si[12] = byte(rate<<4) | 0x02
	binary.BigEndian.PutUint32(si[14:], uint32(samples))
	return b
}

func oggPage(granule uint64, packet []byte) []byte {
	p := make([]byte, 27, 28+len(packet))
	copy(p, "OggS")
	binary.LittleEndian.PutUint64(p[6:], granule)
	p[26] = 1
	p = append(p, byte(len(packet)))
	return append(p, packet...)
}

func vorbis(rate uint32, granule uint64) []byte {
	id := make([]byte, 30)
	id[0] = 1
	copy(id[1:], "vorbis")
	binary.LittleEndian.PutUint32(id[12:], rate)
	return append(oggPage(0, id), oggPage(granule, []byte{1, 2, 3})...)
}

func opus(preSkip uint16, granule uint64) []byte {
	id := make([]byte, 19)
	copy(id, "OpusHead")
	binary.LittleEndian.PutUint16(id[10:], preSkip)
	return append(oggPage(0, id), oggPage(granule, []byte{1})...)
}

func mp4(scale, duration uint32) []byte {
	be := binary.BigEndian
	mvhd := make([]byte, 8+100)
	be.PutUint32(mvhd, uint32(len(mvhd)))
	copy(mvhd[4:], "mvhd")
	be.PutUint32(mvhd[8+12:], scale)
	be.PutUint32(mvhd[8+16:], duration)
	moov := append(be.AppendUint32(nil, uint32(8+len(mvhd))), "moov"...)
	moov = append(moov, mvhd...)
	ftyp := append(be.AppendUint32(nil, 16), "ftypM4A \x00\x00\x00\x00"...)
	return append(ftyp, moov...)
}

func TestSeconds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   []byte
		want float64
	}{
		{"wav", wav(61, 8000), 61},
		{"mp3 frames counted", mp3CBR(100, false), 100 * 1152 / 44100.0},
		{"mp3 xing frame count", mp3CBR(3, true), 2000 * 1152 / 44100.0},
		{"flac", flac(44100, 44100*90), 90},
		{"ogg vorbis", vorbis(44100, 44100*200), 200},
		{"ogg opus", opus(312, 48000*30+312), 30},
		{"m4a", mp4(1000, 187_500), 187.5},
	}
	for _, tc := range cases {
		got, err := audiolen.Seconds(tc.in)
		if err != nil || math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%s: Seconds = %v, %v, want %v", tc.name, got, err, tc.want)
		}
	}
	for name, in := range map[string][]byte{
		"png":                  {0x89, 'P', 'N', 'G', 0, 0, 0, 0},
		"text":                 []byte("this is not audio at all"),
		"empty":                nil,
		"wav without data":     wav(1, 8000)[:40],
		"flac with no samples": flac(44100, 0),
	} {
		if got, err := audiolen.Seconds(in); err == nil {
			t.Errorf("%s: Seconds = %v, want an error", name, got)
		}
	}
}
