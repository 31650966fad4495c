package gemm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// randMat is an r×c matrix (leading dimension ld ≥ c) with a share of
// exact zeros (as in binary features) and values of mixed magnitude.
func randMat(rng *rand.Rand, r, c, ld int, zeros float64) []float64 {
	s := make([]float64, max(0, (r-1)*ld+c))
	for i := range s {
		if rng.Float64() < zeros {
			continue
		}
		s[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
	}
	return s
}

type op struct {
	name string
	tA   blas.Transpose
	tB   blas.Transpose
	fn   func(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int)
}

var ops = []op{
	{"NN", blas.NoTrans, blas.NoTrans, NN},
	{"TN", blas.Trans, blas.NoTrans, TN},
	{"NT", blas.NoTrans, blas.Trans, NT},
}

// TestMatchesGonum: every product gives gonum's Dgemm bits (α = β = 1),
// for shapes with and without tails, both sides of gonum's parallel
// threshold, padded leading dimensions, zeros in A, and 1, 2 and 3
// goroutines.
func TestMatchesGonum(t *testing.T) {
	t.Logf("SIMD kernels: %v", SIMD())
	shapes := [][3]int{
		{1, 1, 1}, {3, 5, 7}, {4, 8, 4}, {5, 9, 3}, {7, 25, 13}, {33, 47, 66},
		{64, 64, 64}, {128, 128, 100}, {130, 100, 128}, {257, 10, 600}, {64, 200, 5},
		{1024, 128, 600}, {1024, 100, 128}, {1024, 128, 100}, {600, 128, 1024}, {128, 100, 1024},
		{12, 40, 9}, {13, 16, 1}, {8, 16, 2}, {15, 33, 17},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for _, o := range ops {
		for _, sh := range shapes {
			m, n, k := sh[0], sh[1], sh[2]
			pad := rng.IntN(3)
			ar, ac := m, k
			if o.tA == blas.Trans {
				ar, ac = k, m
			}
			br, bcol := k, n
			if o.tB == blas.Trans {
				br, bcol = n, k
			}
			lda, ldb, ldc := ac+pad, bcol+pad, n+pad
			a := randMat(rng, ar, ac, lda, 0.4)
			b := randMat(rng, br, bcol, ldb, 0.1)
			c0 := randMat(rng, m, n, ldc, 0.2)
			want := append([]float64(nil), c0...)
			impl.Dgemm(o.tA, o.tB, m, n, k, 1, a, lda, b, ldb, 1, want, ldc)
			for _, p := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(p)
				got := append([]float64(nil), c0...)
				o.fn(m, n, k, a, lda, b, ldb, got, ldc)
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s %dx%dx%d procs %d: c[%d] = %v, gonum %v", o.name, m, n, k, p, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestPartsCompose: computing a product as row ranges with the Part
// functions (arbitrary cut points) gives the bits of the whole product.
func TestPartsCompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	parts := []func(r0, r1, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int){NNPart, TNPart, NTPart}
	for oi, o := range ops {
		for _, sh := range [][3]int{{9, 13, 70}, {200, 130, 100}, {1024, 128, 100}} {
			m, n, k := sh[0], sh[1], sh[2]
			lda, ldb := k, n
			if o.tA == blas.Trans {
				lda = m
			}
			if o.tB == blas.Trans {
				ldb = k
			}
			a := randMat(rng, max(m, k), max(m, k), max(lda, 1), 0.3)
			b := randMat(rng, max(n, k), max(n, k), ldb, 0)
			want := randMat(rng, m, n, n, 0)
			got := append([]float64(nil), want...)
			o.fn(m, n, k, a, lda, b, ldb, want, n)
			for r0 := 0; r0 < m; {
				r1 := min(m, r0+1+rng.IntN(m/3+1))
				parts[oi](r0, r1, m, n, k, a, lda, b, ldb, got, n)
				r0 = r1
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s %v: parts differ from the whole at %d: %v vs %v", o.name, sh, i, got[i], want[i])
				}
			}
		}
	}
}

// TestParallelRowsPanics: a panic in a worker reaches the caller.
func TestParallelRowsPanics(t *testing.T) {
	defer func() {
		if e := recover(); e != "boom" {
			t.Fatalf("recovered %v, want boom", e)
		}
	}()
	ParallelRows(1<<12, 1<<12, func(r0, r1 int) {
		if r0 == 0 {
			panic("boom")
		}
	})
	t.Fatal("no panic")
}

// TestShortSlices: too-short operands panic with a gemm message rather
// than reading out of range.
func TestShortSlices(t *testing.T) {
	for _, o := range ops {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on a short A", o.name)
				}
			}()
			o.fn(8, 8, 8, make([]float64, 10), 8, make([]float64, 64), 8, make([]float64, 64), 8)
		}()
	}
}

// BenchmarkProducts times the E3 model's products on one chunk of 1,024
// rows (X·W1, H·W2, δ2·W2ᵀ, Xᵀδ1, Hᵀδ2) here and in gonum's Dgemm;
// GFLOP/s in the metric.
func BenchmarkProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := []struct {
		name    string
		o       op
		m, n, k int
	}{
		{"XW1", ops[0], 1024, 128, 600},
		{"HW2", ops[0], 1024, 100, 128},
		{"D2W2t", ops[2], 1024, 128, 100},
		{"XtD1", ops[1], 600, 128, 1024},
		{"HtD2", ops[1], 128, 100, 1024},
	}
	for _, s := range shapes {
		ar, ac := s.m, s.k
		if s.o.tA == blas.Trans {
			ar, ac = s.k, s.m
		}
		br, bcol := s.k, s.n
		if s.o.tB == blas.Trans {
			br, bcol = s.n, s.k
		}
		a, bm, c := randMat(rng, ar, ac, ac, 0), randMat(rng, br, bcol, bcol, 0), randMat(rng, s.m, s.n, s.n, 0)
		flops := 2 * float64(s.m*s.n*s.k)
		b.Run(s.name+"/featuredp", func(b *testing.B) {
			for b.Loop() {
				s.o.fn(s.m, s.n, s.k, a, ac, bm, bcol, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(s.name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				impl.Dgemm(s.o.tA, s.o.tB, s.m, s.n, s.k, 1, a, ac, bm, bcol, 1, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestFloat32Products: the float32 products agree with float64 ones to
// float32 rounding, on shapes with tails, and do not depend on the number
// of goroutines.
func TestFloat32Products(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for _, sh := range [][3]int{{1, 1, 1}, {5, 7, 3}, {33, 50, 70}, {1024, 128, 600}, {600, 100, 1024}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, trans := range []bool{false, true} {
			lda := k
			if trans {
				lda = m
			}
			a64 := randMat(rng, max(m, k), max(m, k), lda, 0.3)
			b64 := randMat(rng, k, n, n, 0)
			for j := range a64 {
				a64[j] = float64(float32(math.Tanh(a64[j])))
			}
			for j := range b64 {
				b64[j] = float64(float32(math.Tanh(b64[j])))
			}
			a32, b32 := make([]float32, len(a64)), make([]float32, len(b64))
			for j, v := range a64 {
				a32[j] = float32(v)
			}
			for j, v := range b64 {
				b32[j] = float32(v)
			}
			want := make([]float64, m*n)
			var runs [][]float32
			for _, p := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(p)
				c := make([]float32, m*n)
				if trans {
					TN32(m, n, k, a32, lda, b32, n, c, n)
				} else {
					NN32(m, n, k, a32, lda, b32, n, c, n)
				}
				runs = append(runs, c)
			}
			if trans {
				impl.Dgemm(blas.Trans, blas.NoTrans, m, n, k, 1, a64, lda, b64, n, 0, want, n)
			} else {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a64, lda, b64, n, 0, want, n)
			}
			for i, w := range want {
				if d := math.Abs(float64(runs[0][i]) - w); d > 1e-5*math.Sqrt(float64(k))*(1+math.Abs(w)) {
					t.Fatalf("%v trans=%v: c[%d] = %v, float64 %v", sh, trans, i, runs[0][i], w)
				}
				for _, r := range runs[1:] {
					if math.Float32bits(r[i]) != math.Float32bits(runs[0][i]) {
						t.Fatalf("%v trans=%v: c[%d] depends on the number of goroutines", sh, trans, i)
					}
				}
			}
		}
	}
}

// BenchmarkProducts32 times the two products of the MLP's Float32 mode on
// one 1,024-row chunk of the E3 model.
func BenchmarkProducts32(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
		return s
	}
	x, w, a := mk(1024*600), mk(600*128), mk(1024*128)
	flops := 2 * 1024 * 600 * 128.0
	b.Run("XW1", func(b *testing.B) {
		for b.Loop() {
			NN32(1024, 128, 600, x, 600, w, 128, a, 128)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
	b.Run("XtD1", func(b *testing.B) {
		for b.Loop() {
			TN32(600, 128, 1024, x, 600, a, 128, w, 128)
		}
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// BenchmarkGEMM12288 is the product of BENCHMARKS.md's side-by-side table,
// 12,288×600 · 600×128 (a batch's first layer in one call), in float64
// (these kernels and gonum's Dgemm) and float32; tools/bench_numpy.py times
// the same product in numpy.
func BenchmarkGEMM12288(b *testing.B) {
	const m, n, k = 12288, 128, 600
	rng := rand.New(rand.NewPCG(5, 6))
	a, w, c := randMat(rng, m, k, k, 0), randMat(rng, k, n, n, 0), make([]float64, m*n)
	a32, w32, c32 := make([]float32, len(a)), make([]float32, len(w)), make([]float32, len(c))
	for i, v := range a {
		a32[i] = float32(v)
	}
	for i, v := range w {
		w32[i] = float32(v)
	}
	flops := 2.0 * m * n * k
	report := func(b *testing.B) {
		b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("featuredp-float64", func(b *testing.B) {
		for b.Loop() {
			NN(m, n, k, a, k, w, n, c, n)
		}
		report(b)
	})
	b.Run("gonum-float64", func(b *testing.B) {
		for b.Loop() {
			impl.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, w, n, 1, c, n)
		}
		report(b)
	})
	b.Run("featuredp-float32", func(b *testing.B) {
		for b.Loop() {
			NN32(m, n, k, a32, k, w32, n, c32, n)
		}
		report(b)
	})
}
