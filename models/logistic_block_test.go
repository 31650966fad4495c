package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/design"
)

func blockTestData(t testing.TB, n, d int, seed uint64) *design.Data {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		if i%3 == 0 {
			x[i] = float64(rng.IntN(2)) // one-hot-like columns
		}
	}
	for i := range y {
		y[i] = float64(rng.IntN(2))
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func blockTestThetas(r, p int, scale float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	th := make([][]float64, r)
	for k := range th {
		th[k] = make([]float64, p)
		for j := range th[k] {
			th[k][j] = scale * rng.NormFloat64()
		}
	}
	return th
}

// blockExp against math.Exp on its domain, and σ against the model's.
func TestBlockExpAccuracy(t *testing.T) {
	worst := 0.0
	for x := bexpMin; x <= 0; x += 0.00731 {
		if e := math.Abs(blockExp(x)/math.Exp(x) - 1); e > worst {
			worst = e
		}
	}
	if worst > 5e-16 {
		t.Errorf("max relative error of blockExp on [−708, 0] = %g, want ≤ 5e-16 (2 ulp)", worst)
	}
	for _, z := range []float64{-1e308, -800, -40, -1, -1e-300, 0, 1e-300, 1, 40, 800, 1e308, math.Inf(1), math.Inf(-1)} {
		got, want := blockSigmoid(z), sigmoid(z)
		if math.IsNaN(got) || math.Abs(got-want) > 1e-15*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
			t.Errorf("blockSigmoid(%g) = %g, want %g", z, got, want)
		}
	}
}

// The block gradient equals GradSum to rounding, for every model variant.
func TestLogisticBlockMatchesGradSum(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, d      int
		intercept bool
		l2        float64
		lanes     int
	}{
		{"plain", 203, 7, false, 0, 5},
		{"intercept", 64, 3, true, 0, 4},
		{"ridge", 17, 5, true, 0.3, 9},
		{"one row", 1, 4, false, 0.1, 1},
		{"tail only", 3, 2, true, 0, 3},
		{"binary patterns", 120, 6, true, 0.2, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := blockTestData(t, tc.n, tc.d, 3)
			m, err := NewLogistic(tc.d, tc.intercept, tc.l2)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewLogisticBlock(m, data)
			if err != nil {
				t.Fatal(err)
			}
			th := blockTestThetas(tc.lanes, m.NumParams(), 2, 5)
			outs := blockTestThetas(tc.lanes, m.NumParams(), 1, 6) // overwritten
			if err := b.GradSums(th, outs); err != nil {
				t.Fatal(err)
			}
			for r := range th {
				want := make([]float64, m.NumParams())
				m.GradSum(th[r], data, nil, want)
				for j := range want {
					if math.Abs(outs[r][j]-want[j]) > 1e-11*(1+math.Abs(want[j])) {
						t.Errorf("lane %d coord %d: %.17g, GradSum %.17g", r, j, outs[r][j], want[j])
					}
				}
			}
		})
	}
}

// A lane's result does not depend on the other lanes or on its position.
func TestLogisticBlockLaneIndependence(t *testing.T) {
	data := blockTestData(t, 131, 6, 9)
	m, _ := NewLogistic(6, true, 0)
	b, _ := NewLogisticBlock(m, data)
	th := blockTestThetas(11, m.NumParams(), 3, 4)
	all := blockTestThetas(11, m.NumParams(), 0, 0)
	if err := b.GradSums(th, all); err != nil {
		t.Fatal(err)
	}
	for r := range th {
		one := [][]float64{make([]float64, m.NumParams())}
		if err := b.GradSums([][]float64{th[r]}, one); err != nil {
			t.Fatal(err)
		}
		for j := range one[0] {
			if math.Float64bits(one[0][j]) != math.Float64bits(all[r][j]) {
				t.Fatalf("lane %d coord %d: alone %.17g, in the block %.17g", r, j, one[0][j], all[r][j])
			}
		}
	}
}

// The kernel in use (SIMD where built) is bit-identical to the portable
// one, on the pattern path (binary columns) and the dense path, including
// huge |z| (σ saturates) and an odd number of rows.
func TestLogisticBlockKernelsAgree(t *testing.T) {
	for _, tc := range []struct {
		n, d    int
		wantBin bool
	}{{77, 9, true}, {77, 7, false}, {79, 7, false}, {1, 3, false}} {
		for _, scale := range []float64{0.1, 3, 1e3} {
			data := blockTestData(t, tc.n, tc.d, 11)
			m, _ := NewLogistic(tc.d, true, 0.01)
			b, err := NewLogisticBlock(m, data)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(b.bin) > 0; got != tc.wantBin {
				t.Fatalf("n=%d d=%d: pattern path %v, want %v", tc.n, tc.d, got, tc.wantBin)
			}
			th := blockTestThetas(19, m.NumParams(), scale, 12)
			got := blockTestThetas(19, m.NumParams(), 0, 0)
			want := blockTestThetas(19, m.NumParams(), 0, 0)
			if err := b.GradSums(th, got); err != nil {
				t.Fatal(err)
			}
			saved := logisticBlockKernel
			logisticBlockKernel = logisticPortable
			err = b.GradSums(th, want)
			logisticBlockKernel = saved
			if err != nil {
				t.Fatal(err)
			}
			for r := range got {
				for j := range got[r] {
					if math.Float64bits(got[r][j]) != math.Float64bits(want[r][j]) {
						t.Fatalf("n=%d d=%d scale %g lane %d coord %d: kernel %.17g, portable %.17g", tc.n, tc.d, scale, r, j, got[r][j], want[r][j])
					}
				}
			}
		}
	}
}

func TestLogisticBlockErrors(t *testing.T) {
	data := blockTestData(t, 5, 3, 1)
	m, _ := NewLogistic(3, false, 0)
	if _, err := NewLogisticBlock(nil, data); err == nil {
		t.Error("nil model accepted")
	}
	m4, _ := NewLogistic(4, false, 0)
	if _, err := NewLogisticBlock(m4, data); err == nil {
		t.Error("column mismatch accepted")
	}
	for _, z := range []*LogisticBlock{nil, {}} {
		if err := z.GradSums([][]float64{make([]float64, 3)}, [][]float64{make([]float64, 3)}); err == nil {
			t.Errorf("GradSums on %#v accepted", z)
		}
	}
	b, _ := NewLogisticBlock(m, data)
	if err := b.GradSums([][]float64{make([]float64, 3)}, nil); err == nil {
		t.Error("missing output accepted")
	}
	if err := b.GradSums([][]float64{make([]float64, 2)}, [][]float64{make([]float64, 3)}); err == nil {
		t.Error("short θ accepted")
	}
}

// BenchmarkLogisticBlockGradSums: one full-batch gradient of R runs on an
// Adult-sized design (45,175 × 31); ns/op divided by R is the cost per run.
// "dense": every column continuous; "adult": 27 binary columns with ≈ 1,000
// distinct patterns and 4 continuous ones, like the encoded Adult data.
func BenchmarkLogisticBlockGradSums(b *testing.B) {
	for _, tc := range []struct {
		name string
		r    int
	}{{"dense", 1}, {"dense", 16}, {"dense", 32}, {"adult", 1}, {"adult", 4}, {"adult", 6}, {"adult", 16}, {"adult", 32}} {
		b.Run(fmt.Sprintf("%s/R=%d", tc.name, tc.r), func(b *testing.B) {
			benchGradSums(b, benchBlock(b, tc.name), tc.r)
		})
	}
}

// BenchmarkLogisticBlockRowSplit compares, on the data of
// BenchmarkLogisticBlockGradSums, the two ways GradSums fills idle cores
// when a call has fewer wide lane groups than cores: the row split
// ("split") and, with splitRows off, narrow groups (R > 4) or one fused
// pass (R ≤ 4) ("groups"). GradSums splits rows when the data have no
// binary patterns; run it at GOMAXPROCS ≥ 2 (-cpu 2).
func BenchmarkLogisticBlockRowSplit(b *testing.B) {
	for _, name := range []string{"dense", "adult"} {
		for _, r := range []int{1, 4, 16} {
			for _, split := range []bool{false, true} {
				way := map[bool]string{false: "groups", true: "split"}[split]
				b.Run(fmt.Sprintf("%s/R=%d/%s", name, r, way), func(b *testing.B) {
					blk := benchBlock(b, name)
					blk.splitRows = split
					benchGradSums(b, blk, r)
				})
			}
		}
	}
}

// benchBlock returns a LogisticBlock over 45,175 × 31 rows: "dense" every
// column continuous, "adult" 27 binary columns with ≈ 1,000 patterns.
func benchBlock(b *testing.B, name string) *LogisticBlock {
	data := blockTestData(b, 45175, 31, 1)
	if name == "adult" {
		rng := rand.New(rand.NewPCG(7, 7))
		for i := range data.N {
			row := data.X[i*31 : i*31+31]
			p := rng.IntN(1000)
			for j := 4; j < 31; j++ {
				row[j] = float64((p >> (j % 10)) & 1)
			}
		}
	}
	m, _ := NewLogistic(31, false, 0)
	blk, err := NewLogisticBlock(m, data)
	if err != nil {
		b.Fatal(err)
	}
	return blk
}

// benchGradSums times blk.GradSums of r lanes.
func benchGradSums(b *testing.B, blk *LogisticBlock, r int) {
	th := blockTestThetas(r, 31, 0.1, 2)
	outs := blockTestThetas(r, 31, 0, 0)
	for b.Loop() {
		if err := blk.GradSums(th, outs); err != nil {
			b.Fatal(err)
		}
	}
}

// pack and unpack compute the documented chains lane by lane: c_pl = FMA
// chain over the binary columns from the intercept, the binary gradient
// Σ_p x_pj S_pl and the intercept Σ_p S_pl in pattern order; checked bit
// for bit against those chains written one lane at a time, with pattern
// and column counts that are not multiples of the four chains run side
// by side, for wide and narrow groups.
func TestLogisticBlockPackUnpackChains(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, d      int
		lanes, L  int
		intercept bool
	}{
		{"wide group, 5 lanes", 4001, 22, 5, 16, true},
		{"narrow group, 3 lanes", 4001, 22, 3, 4, true},
		{"one lane, no intercept", 997, 10, 1, 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Columns 0 … 6 binary, the bits of one of 45 patterns.
			data := blockTestData(t, tc.n, tc.d, 31)
			rng := rand.New(rand.NewPCG(3, 3))
			for i := range tc.n {
				p := rng.IntN(45)
				for j := range 7 {
					data.X[i*tc.d+j] = float64(p >> j & 1)
				}
				for j := 7; j < tc.d; j++ {
					data.X[i*tc.d+j] = rng.NormFloat64()
				}
			}
			m, _ := NewLogistic(tc.d, tc.intercept, 0.05)
			b, err := NewLogisticBlock(m, data)
			if err != nil {
				t.Fatal(err)
			}
			nb := len(b.bin)
			if nb == 0 || nb%4 == 0 || b.np%4 == 0 {
				t.Fatalf("setup: %d binary columns and %d patterns, want both present and not multiples of 4", nb, b.np)
			}
			th := blockTestThetas(tc.lanes, m.NumParams(), 1, 5)
			var sc laneScratch
			b.pack(&sc, th, tc.L)
			for i := range sc.s {
				sc.s[i] = rng.NormFloat64()
			}
			outs := blockTestThetas(tc.lanes, m.NumParams(), 0, 0)
			b.unpack(&sc, outs, th)
			for l := range tc.lanes {
				for q := range b.np {
					var c float64
					if tc.intercept {
						c = th[l][tc.d]
					}
					for k, j := range b.bin {
						c = math.FMA(b.pats[q*nb+k], th[l][j], c)
					}
					if got := sc.c[q*tc.L+l]; math.Float64bits(got) != math.Float64bits(c) {
						t.Fatalf("lane %d pattern %d: c = %.17g, chain %.17g", l, q, got, c)
					}
				}
				for k, j := range b.bin {
					var v float64
					for q := range b.np {
						v = math.FMA(b.pats[q*nb+k], sc.s[q*tc.L+l], v)
					}
					v += float64(tc.n) * m.L2 * th[l][j]
					if math.Float64bits(outs[l][j]) != math.Float64bits(v) {
						t.Fatalf("lane %d binary column %d: %.17g, chain %.17g", l, j, outs[l][j], v)
					}
				}
				if tc.intercept {
					var v float64
					for q := range b.np {
						v += sc.s[q*tc.L+l]
					}
					if math.Float64bits(outs[l][tc.d]) != math.Float64bits(v) {
						t.Fatalf("lane %d intercept: %.17g, sum %.17g", l, outs[l][tc.d], v)
					}
				}
			}
			for l := tc.lanes; l < tc.L; l++ {
				for q := range b.np {
					if sc.c[q*tc.L+l] != 0 {
						t.Fatalf("unused lane %d pattern %d: c = %g, want 0", l, q, sc.c[q*tc.L+l])
					}
				}
			}
		})
	}
}
