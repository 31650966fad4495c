// Package suggest finds the name a user most likely meant: the candidate
// nearest to a misspelt name in Levenshtein edit distance, for the "did
// you mean" hints of error messages.
package suggest

import (
	"fmt"
	"strings"
)

// MaxEdits is the largest edit distance at which Nearest suggests a name.
const MaxEdits = 2

// maxRunes bounds the names Nearest compares: a longer name (a binary
// header's, say) is not worth the quadratic distance.
const maxRunes = 256

// Nearest returns the candidate nearest to name, compared lower-cased,
// within MaxEdits edits; the first of equally near ones; "" when none is.
// Candidates whose lengths differ from name's by more than MaxEdits are
// skipped without computing the distance, so a call costs O(len(name)²)
// per candidate of about name's length.
func Nearest(name string, candidates []string) string {
	a := []rune(strings.ToLower(name))
	if len(a) > maxRunes {
		return ""
	}
	best, bestD := "", MaxEdits+1
	for _, c := range candidates {
		if d := len(c) - len(name); d > 4*MaxEdits || d < -4*MaxEdits { // bytes: a rune is at most 4
			continue
		}
		b := []rune(strings.ToLower(c))
		if len(b) > maxRunes || len(b)-len(a) > MaxEdits || len(a)-len(b) > MaxEdits {
			continue
		}
		if d := Distance(a, b); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint returns ` (did you mean "age"?)` for the candidate Nearest finds,
// or "" when none is near: the suffix of an error about an unknown name.
func Hint(name string, candidates []string) string {
	if best := Nearest(name, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// Distance is the Levenshtein distance of a and b (insertions, deletions
// and substitutions of one rune each), in O(len(a)·len(b)) time.
func Distance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
