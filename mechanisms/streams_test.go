package mechanisms

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func draw(r *rand.Rand, k int) []uint64 {
	out := make([]uint64, k)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func equalU(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestStreamsDeterministic(t *testing.T) {
	a := draw(NewStreams(42).Split(3).Derive("cell").Noise(), 100)
	b := draw(NewStreams(42).Split(3).Derive("cell").Noise(), 100)
	if !equalU(a, b) {
		t.Fatal("same seed and path gave different sequences")
	}
}

func TestStreamsDistinct(t *testing.T) {
	root := NewStreams(1)
	seqs := map[string][]uint64{
		"seed1":        draw(root.Noise(), 8),
		"seed2":        draw(NewStreams(2).Noise(), 8),
		"sampling":     draw(root.Sampling(), 8),
		"public":       draw(root.PublicSampling(), 8),
		"init":         draw(root.Init(), 8),
		"split0":       draw(root.Split(0).Noise(), 8),
		"split1":       draw(root.Split(1).Noise(), 8),
		"split-1":      draw(root.Split(-1).Noise(), 8),
		"derive-a":     draw(root.Derive("a").Noise(), 8),
		"derive-b":     draw(root.Derive("b").Noise(), 8),
		"derive-empty": draw(root.Derive("").Noise(), 8),
		"a-then-1":     draw(root.Derive("a").Split(1).Noise(), 8),
		"1-then-a":     draw(root.Split(1).Derive("a").Noise(), 8),
		"custom":       draw(root.Rand("custom"), 8),
		// Purposes of equal length ("model" and "noise"; "custom" and
		// "motsuc"): a Rand that hashed the purpose's length but not
		// its bytes gave the model keys the noise stream.
		"model":  draw(root.Rand(PurposeModel), 8),
		"motsuc": draw(root.Rand("motsuc"), 8),
	}
	seen := map[uint64]string{}
	for name, s := range seqs {
		if other, ok := seen[s[0]]; ok {
			t.Errorf("streams %s and %s start with the same value", name, other)
		}
		seen[s[0]] = name
	}
	// Purposes are the documented aliases.
	if !equalU(draw(root.Noise(), 4), draw(root.Rand(PurposeNoise), 4)) {
		t.Error("Noise() differs from Rand(PurposeNoise)")
	}
}

// TestStreamsScheduling derives children concurrently in any order: the
// sequence of each child depends only on its path.
func TestStreamsScheduling(t *testing.T) {
	root := NewStreams(7)
	want := make([][]uint64, 16)
	for i := range want {
		want[i] = draw(root.Split(i).Noise(), 32)
	}
	got := make([][]uint64, 16)
	var wg sync.WaitGroup
	for i := 15; i >= 0; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = draw(root.Split(100+i).Sampling(), i) // unrelated use first
			got[i] = draw(root.Split(i).Noise(), 32)
		}()
	}
	wg.Wait()
	for i := range want {
		if !equalU(want[i], got[i]) {
			t.Fatalf("child %d depends on scheduling", i)
		}
	}
}

func TestCryptoSource(t *testing.T) {
	r := NewCryptoRand()
	seen := map[uint64]bool{}
	for range 200 { // spans several 512-byte refills
		v := r.Uint64()
		if seen[v] {
			t.Fatal("crypto source repeated a 64-bit value")
		}
		seen[v] = true
	}
	var c CryptoSource // zero value usable
	if c.Uint64() == c.Uint64() {
		t.Fatal("zero CryptoSource repeated")
	}
	for range 1000 {
		if f := r.Float64(); f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v", f)
		}
	}
}

// StreamsFor: the tree matches the mode, or the call fails.
func TestStreamsFor(t *testing.T) {
	seeded, secure := NewStreams(4), NewSecureStreams()
	for _, tc := range []struct {
		name       string
		mode       Mode
		st         *Streams
		wantSecure bool
		wantErr    string
	}{
		{"reproducible, seed", Reproducible, nil, false, ""},
		{"reproducible, seeded tree", Reproducible, seeded, false, ""},
		{"reproducible, secure tree", Reproducible, secure, false, "Mode is Reproducible"},
		{"secure, nil", Secure, nil, true, ""},
		{"secure, secure tree", Secure, secure, true, ""},
		{"secure, seeded tree", Secure, seeded, false, "Mode is Secure"},
		{"unknown", Mode(3), nil, false, "unknown mode"},
	} {
		st, err := StreamsFor(tc.mode, 9, tc.st)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
		case err != nil || st.Secure() != tc.wantSecure:
			t.Errorf("%s: secure %v, %v", tc.name, st.Secure(), err)
		}
	}
	if st, _ := StreamsFor(Reproducible, 9, nil); st.Noise().Uint64() != NewStreams(9).Noise().Uint64() {
		t.Error("Reproducible without streams is not NewStreams(seed)")
	}
}
