package demomedia

import (
	"math"
	"testing"
)

// TestWAVIsTheFormula checks WAV's oscillators and tables against the sound
// written out directly, every voice evaluated at every sample: the same
// bytes, for several slugs (tempos that do and do not split a beat evenly)
// and long enough for the phrase that goes up.
func TestWAVIsTheFormula(t *testing.T) {
	t.Parallel()
	for _, slug := range []string{"lagos-sunrise", "owambe", "yanga", "udara", "still-waters"} {
		const seconds = 40
		got, err := WAV(slug, seconds)
		if err != nil {
			t.Fatal(err)
		}
		want := formula(slug, seconds)
		diff := 0
		for i := range want {
			if got[44+i] != want[i] {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d of %d samples differ from the formula", slug, diff, len(want))
		}
	}
}

// formula is WAV's samples, computed the slow, obvious way.
func formula(slug string, seconds int) []byte {
	rng := seed(slug)
	root := 196.0 * math.Pow(2, float64(rng.IntN(7))/12)
	bpm := 84 + rng.IntN(40)
	beat := SampleRate * 60 / bpm
	phrase := make([]int, 16)
	for i := range phrase {
		phrase[i] = pentatonic[rng.IntN(len(pentatonic))]
	}
	bass := []int{0, 0, 5, 7}
	n := seconds * SampleRate
	pcm := make([]byte, n)
	for i := range n {
		t := float64(i) / SampleRate
		eighth := i / (beat / 2)
		pos := float64(i%(beat/2)) / float64(beat/2)
		note := phrase[eighth%len(phrase)]
		if (eighth/len(phrase))%4 == 3 {
			note += 5
		}
		freq := root * math.Pow(2, float64(note)/12)
		v := 0.35 * math.Exp(-3*pos) * math.Sin(2*math.Pi*freq*t)
		bf := root / 2 * math.Pow(2, float64(bass[(i/(beat*4))%len(bass)])/12)
		v += 0.25 * math.Sin(2*math.Pi*bf*t)
		inBeat := float64(i%beat) / float64(beat)
		v += 0.3 * math.Exp(-30*inBeat) * math.Sin(2*math.Pi*60*inBeat)
		if fade := float64(n-i) / SampleRate; fade < 2 {
			v *= fade / 2
		}
		pcm[i] = byte(128 + int(math.Max(-1, math.Min(1, v))*100))
	}
	return pcm
}
