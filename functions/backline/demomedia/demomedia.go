// Package demomedia makes the playable audio and the cover art of Backline's
// demo tracks. Nothing is shipped as a binary file: every track is a short
// piece of music synthesised from its slug (a pentatonic melody over a bass
// line and a drum pulse), and every cover a gradient with shapes and the
// title, so the dev seed has real media that players and browsers accept.
package demomedia

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// SampleRate is the audio's rate: low, to keep hours of demo music small,
// and still a rate every browser decodes.
const SampleRate = 11025

// MaxSeconds caps a generated track so a bad duration cannot fill the disk.
const MaxSeconds = 600

// seed derives a deterministic random source from a slug.
func seed(slug string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(slug))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// pentatonic is a major pentatonic scale in semitones above the root.
var pentatonic = []int{0, 2, 4, 7, 9, 12, 14, 16}

// WAV returns an 8-bit mono PCM WAV file of the given length in seconds,
// the same bytes for the same slug and length.
func WAV(slug string, seconds int) ([]byte, error) {
	if seconds <= 0 || seconds > MaxSeconds {
		return nil, fmt.Errorf("demomedia: length %d s outside 1..%d", seconds, MaxSeconds)
	}
	rng := seed(slug)
	root := 196.0 * math.Pow(2, float64(rng.IntN(7))/12) // G3 and up
	bpm := 84 + rng.IntN(40)
	beat := SampleRate * 60 / bpm // samples per beat
	// A four-bar phrase of eighth notes, repeated with variation.
	phrase := make([]int, 16)
	for i := range phrase {
		phrase[i] = pentatonic[rng.IntN(len(pentatonic))]
	}
	bass := []int{0, 0, 5, 7}
	n := seconds * SampleRate
	pcm := make([]byte, n)
	// The sound is sin(2π·f·t) per voice, a plucked decay per eighth and a
	// kick per beat. The decay and the kick repeat every eighth and every
	// beat, so they are tables; each voice's sine is an oscillator set to
	// the exact phase where its note starts and turned by a fixed step per
	// sample after that: a few multiplications per sample instead of three
	// sines, two exponentials and two powers (a fresh dev start makes
	// an hour of it).
	half, bar := beat/2, beat*4
	decay := make([]float64, half)
	for j := range decay {
		decay[j] = 0.35 * math.Exp(-3*float64(j)/float64(half))
	}
	kick := make([]float64, beat)
	for j := range kick {
		p := float64(j) / float64(beat)
		kick[j] = 0.3 * math.Exp(-30*p) * math.Sin(2*math.Pi*60*p)
	}
	var melody, low oscillator
	inEighth, inBar, inBeat := 0, 0, 0 // the sample's place in each
	for i := 0; i < n; i++ {
		if inEighth == half {
			inEighth = 0
		}
		if inEighth == 0 {
			eighth := i / half
			note := phrase[eighth%len(phrase)]
			if (eighth/len(phrase))%4 == 3 { // every fourth phrase goes up
				note += 5
			}
			melody.set(root*math.Pow(2, float64(note)/12), i)
		}
		if inBar == bar {
			inBar = 0
		}
		if inBar == 0 {
			low.set(root/2*math.Pow(2, float64(bass[(i/bar)%len(bass)])/12), i)
		}
		if inBeat == beat {
			inBeat = 0
		}
		v := decay[inEighth]*melody.next() + 0.25*low.next() + kick[inBeat]
		inEighth, inBar, inBeat = inEighth+1, inBar+1, inBeat+1
		if fade := float64(n-i) / SampleRate; fade < 2 {
			v *= fade / 2
		}
		pcm[i] = byte(128 + int(clamp(v)*100))
	}
	var b bytes.Buffer
	b.Grow(44 + n)
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+n)) //nolint:errcheck // bytes.Buffer writes never fail
	b.WriteString("WAVEfmt ")
	// fmt chunk: PCM, mono, 8-bit, one byte per sample.
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(SampleRate), uint32(SampleRate), uint16(1), uint16(8)} {
		binary.Write(&b, binary.LittleEndian, v) //nolint:errcheck
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(n)) //nolint:errcheck
	b.Write(pcm)
	return b.Bytes(), nil
}

// Cover returns a size×size JPEG: a two-colour gradient, a few circles and
// the title, derived from the slug.
func Cover(slug, title string, size int) ([]byte, error) {
	if size < 64 || size > 2048 {
		return nil, fmt.Errorf("demomedia: cover size %d outside 64..2048", size)
	}
	rng := seed("cover:" + slug)
	hue := func() color.RGBA {
		return color.RGBA{uint8(40 + rng.IntN(200)), uint8(20 + rng.IntN(180)), uint8(40 + rng.IntN(200)), 255}
	}
	a, c := hue(), hue()
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			f := float64(x+y) / float64(2*size)
			img.SetRGBA(x, y, color.RGBA{mix(a.R, c.R, f), mix(a.G, c.G, f), mix(a.B, c.B, f), 255})
		}
	}
	for k := 0; k < 4; k++ {
		cx, cy := rng.IntN(size), rng.IntN(size)
		r := size/10 + rng.IntN(size/4)
		tint := hue()
		for y := max(0, cy-r); y < min(size, cy+r); y++ {
			for x := max(0, cx-r); x < min(size, cx+r); x++ {
				if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r {
					p := img.RGBAAt(x, y)
					img.SetRGBA(x, y, color.RGBA{mix(p.R, tint.R, 0.45), mix(p.G, tint.G, 0.45), mix(p.B, tint.B, 0.45), 255})
				}
			}
		}
	}
	drawTitle(img, strings.ToUpper(title))
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, fmt.Errorf("demomedia: encode cover: %w", err)
	}
	return out.Bytes(), nil
}

func mix(a, b uint8, f float64) uint8 {
	return uint8(float64(a)*(1-f) + float64(b)*f)
}

// drawTitle writes the title in the bottom-left corner, scaled up from the
// 7×13 bitmap face so it reads at thumbnail size.
func drawTitle(dst *image.RGBA, title string) {
	face := basicfont.Face7x13
	w := font.MeasureString(face, title).Ceil()
	small := image.NewRGBA(image.Rect(0, 0, w+4, 16))
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.White), Face: face, Dot: fixed.P(2, 12)}
	d.DrawString(title)
	size := dst.Bounds().Dx()
	scale := max(1, (size*8/10)/max(1, w+4))
	scale = min(scale, size/64)
	x0, y0 := size/16, size-size/16-16*scale
	shadow := image.NewUniform(color.RGBA{0, 0, 0, 110})
	draw.Draw(dst, image.Rect(x0-scale*2, y0-scale*2, x0+(w+6)*scale, y0+18*scale), shadow, image.Point{}, draw.Over)
	for y := 0; y < 16; y++ {
		for x := 0; x < w+4; x++ {
			if _, _, _, al := small.At(x, y).RGBA(); al > 0x8000 {
				draw.Draw(dst, image.Rect(x0+x*scale, y0+y*scale, x0+(x+1)*scale, y0+(y+1)*scale),
					image.NewUniform(color.White), image.Point{}, draw.Src)
			}
		}
	}
}

// oscillator is sin(2π·freq·t) at t = sample/SampleRate, sample after
// sample: the phase is set exactly at the note's first sample, then turned
// by one sample's angle (a rotation, so no sine per sample).
type oscillator struct{ sin, cos, stepSin, stepCos float64 }

// set starts the oscillator at freq, at the given sample.
func (o *oscillator) set(freq float64, sample int) {
	o.sin, o.cos = math.Sincos(2 * math.Pi * freq * float64(sample) / SampleRate)
	o.stepSin, o.stepCos = math.Sincos(2 * math.Pi * freq / SampleRate)
}

// next returns the current value and turns to the next sample.
func (o *oscillator) next() float64 {
	v := o.sin
	o.sin, o.cos = o.sin*o.stepCos+o.cos*o.stepSin, o.cos*o.stepCos-o.sin*o.stepSin
	return v
}

// clamp limits v to [-1, 1] (math.Max and math.Min are calls on amd64, and
// this runs for every sample).
func clamp(v float64) float64 {
	if v > 1 {
		return 1
	}
	if v < -1 {
		return -1
	}
	return v
}
