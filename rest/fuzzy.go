package rest

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The "Perhaps you meant …" hints of PGRST200/202/205 come from a fuzzy
// set, as in PostgREST: names are compared by cosine similarity of their
// 3-gram (then 2-gram) counts of letters and digits, the best candidates
// are re-ranked by the Levenshtein distance of the lower-cased names
// (underscores and all), and a suggestion must score above a minimum:
// fuzzyNames for table and function names, fuzzyParams for parameter lists
// and relationships (PostgREST 14).
const (
	fuzzyNames  = 0.75
	fuzzyParams = 0.33
)

// fuzzyNormalize keeps what the fuzzy set compares: lower-cased letters,
// digits, spaces and commas (commas separate parameter names).
func fuzzyNormalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == ',' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// grams counts the n-grams of s padded with '-' at both ends, so that
// matching first and last letters weigh in, as in the fuzzy set PostgREST
// uses.
func grams(s string, n int) map[string]int {
	padded := []rune("-" + s + "-")
	out := map[string]int{}
	if len(padded) < n {
		out[string(padded)]++
		return out
	}
	for i := 0; i+n <= len(padded); i++ {
		out[string(padded[i:i+n])]++
	}
	return out
}

// cosine is the similarity of two n-gram count vectors.
func cosine(a, b map[string]int) float64 {
	var dot, na, nb float64
	for k, v := range a {
		na += float64(v * v)
		dot += float64(v * b[k])
	}
	for _, v := range b {
		nb += float64(v * v)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// levenshtein is the edit distance, kept to two rows of the table.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// fuzzyBest returns the candidate closest to name that scores above
// minScore, or "" when there is none. An exact match is not a suggestion.
func fuzzyBest(name string, candidates []string, minScore float64) string {
	q := fuzzyNormalize(name)
	lower := []rune(strings.ToLower(name))
	// The edit distance is at least the difference in length, so the
	// final score is at most shorter/longer: candidates that cannot reach
	// minScore are dropped first, and a name far longer than any candidate
	// costs only its lower-casing.
	ql := len(lower)
	var reachable []string
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return ""
		}
		cl := utf8.RuneCountInString(c)
		if float64(min(ql, cl)) > minScore*float64(max(ql, cl, 1)) {
			reachable = append(reachable, c)
		}
	}
	if len(reachable) == 0 {
		return ""
	}
	candidates = reachable
	type scored struct {
		score float64
		name  string
	}
	for n := 3; n >= 2; n-- {
		qg := grams(q, n)
		var res []scored
		for _, c := range candidates {
			if s := cosine(qg, grams(fuzzyNormalize(c), n)); s > 0 {
				res = append(res, scored{s, c})
			}
		}
		// Only the 50 best by n-grams are re-ranked, as the fuzzy set
		// does: the edit distance is the costly part.
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		if len(res) > 50 {
			res = res[:50]
		}
		for i := range res {
			b := []rune(strings.ToLower(res[i].name))
			res[i].score = 1 - float64(levenshtein(lower, b))/float64(max(len(lower), len(b), 1))
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		if len(res) > 0 && res[0].score > minScore {
			return res[0].name
		}
	}
	return ""
}
