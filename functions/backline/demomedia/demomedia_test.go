package demomedia_test

import (
	"bytes"
	"encoding/binary"
	"image/jpeg"
	"testing"

	"github.com/basaltdev/basalt/functions/backline/demomedia"
)

func TestWAV(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		slug    string
		seconds int
	}{
		{"short track", "lagos-sunrise", 3},
		{"another slug", "owambe", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := demomedia.WAV(tt.slug, tt.seconds)
			if err != nil {
				t.Fatal(err)
			}
			wantData := tt.seconds * demomedia.SampleRate
			if len(b) != 44+wantData {
				t.Fatalf("len = %d, want %d", len(b), 44+wantData)
			}
			if string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
				t.Fatalf("header = %q", b[:44])
			}
			if got := binary.LittleEndian.Uint32(b[24:28]); got != demomedia.SampleRate {
				t.Errorf("sample rate = %d", got)
			}
			if got := binary.LittleEndian.Uint32(b[40:44]); int(got) != wantData {
				t.Errorf("data size = %d, want %d", got, wantData)
			}
			// Real sound, not silence: the samples must swing well away from the midpoint.
			lo, hi := byte(255), byte(0)
			for _, s := range b[44:] {
				lo, hi = min(lo, s), max(hi, s)
			}
			if hi-lo < 100 {
				t.Errorf("sample range %d..%d: too quiet to be music", lo, hi)
			}
			again, _ := demomedia.WAV(tt.slug, tt.seconds)
			if !bytes.Equal(b, again) {
				t.Error("same slug and length gave different audio")
			}
		})
	}
	a, _ := demomedia.WAV("lagos-sunrise", 2)
	b, _ := demomedia.WAV("owambe", 2)
	if bytes.Equal(a, b) {
		t.Error("two slugs gave the same audio")
	}
	for _, bad := range []int{0, -1, demomedia.MaxSeconds + 1} {
		if _, err := demomedia.WAV("x", bad); err == nil {
			t.Errorf("WAV(%d s) = nil error, want a refusal", bad)
		}
	}
}

func TestCover(t *testing.T) {
	t.Parallel()
	b, err := demomedia.Cover("lagos-sunrise", "Lagos Sunrise", 256)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("cover is not a JPEG: %v", err)
	}
	if got := img.Bounds().Dx(); got != 256 {
		t.Errorf("width = %d, want 256", got)
	}
	other, _ := demomedia.Cover("owambe", "Owambe", 256)
	if bytes.Equal(b, other) {
		t.Error("two slugs gave the same cover")
	}
	if _, err := demomedia.Cover("x", "X", 10); err == nil {
		t.Error("Cover(size 10) = nil error, want a refusal")
	}
}

// BenchmarkWAV is one seeded track's audio (basalt dev generates a dozen on
// a fresh start).
func BenchmarkWAV(b *testing.B) {
	for b.Loop() {
		if _, err := demomedia.WAV("lagos-sunrise", 210); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCover is one seeded track's cover.
func BenchmarkCover(b *testing.B) {
	for b.Loop() {
		if _, err := demomedia.Cover("lagos-sunrise", "Lagos Sunrise", 512); err != nil {
			b.Fatal(err)
		}
	}
}
