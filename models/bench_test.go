package models

import (
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// benchData returns an n×d standard-normal matrix with labels from label
// (no zero entries, unlike randomData).
func benchData(b *testing.B, n, d int, label func(*rand.Rand) float64) *design.Data {
	b.Helper()
	r := rand.New(rand.NewPCG(42, 42))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = label(r)
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkLogisticGradSumFullBatch is one full-batch gradient on an
// Adult-sized 45,175 × 31 matrix (target ≤ 3 ms).
func BenchmarkLogisticGradSumFullBatch(b *testing.B) {
	data := benchData(b, 45175, 31, binLabel)
	m, _ := NewLogistic(31, true, 0)
	theta := randomTheta(rand.New(rand.NewPCG(1, 1)), m.NumParams())
	out := make([]float64, m.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		clear(out)
		m.GradSum(theta, data, nil, out)
	}
}

// BenchmarkMLPPerExampleGrads materialises the per-example gradients of a
// 1024 batch for D=31, H=32, K=2 (P = 1,122).
func BenchmarkMLPPerExampleGrads(b *testing.B) {
	data := benchData(b, 4096, 31, classLabel(2))
	m, _ := NewMLP(31, 32, 2, Softplus, HeadSoftmaxCE)
	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(1, 1)))
	idx := rand.New(rand.NewPCG(2, 2)).Perm(4096)[:1024]
	out := make([]float64, len(idx)*m.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		m.PerExampleGrads(theta, data, idx, out)
	}
}

// BenchmarkMLPGhostClippedSum is the ghost-clipping alternative on the same
// batch: per-example norms, then one weighted gradient sum.
func BenchmarkMLPGhostClippedSum(b *testing.B) {
	data := benchData(b, 4096, 31, classLabel(2))
	m, _ := NewMLP(31, 32, 2, Softplus, HeadSoftmaxCE)
	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(1, 1)))
	idx := rand.New(rand.NewPCG(2, 2)).Perm(4096)[:1024]
	norms := make([]float64, len(idx))
	out := make([]float64, m.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		m.PerExampleGradNorms(theta, data, idx, norms)
		for k, v := range norms {
			norms[k] = min(1, 1/v) // clip at C = 1
		}
		clear(out)
		m.WeightedGradSum(theta, data, idx, norms, out)
	}
}

// BenchmarkLinearStatsGrad is one full-batch ridge gradient from the
// sufficient statistics (CorrDP synthetic size: D = 100, P² work).
func BenchmarkLinearStatsGrad(b *testing.B) {
	data := benchData(b, 2000, 100, realLabel)
	m, _ := NewLinear(100, false, 1)
	stats, err := NewLinearStats(data)
	if err != nil {
		b.Fatal(err)
	}
	theta := randomTheta(rand.New(rand.NewPCG(1, 1)), m.NumParams())
	out := make([]float64, m.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		stats.Grad(m, theta, out)
	}
}

// BenchmarkLinearGradSumFullBatch is the same gradient by the O(N·D) row
// loop, for comparison with BenchmarkLinearStatsGrad.
func BenchmarkLinearGradSumFullBatch(b *testing.B) {
	data := benchData(b, 2000, 100, realLabel)
	m, _ := NewLinear(100, false, 1)
	theta := randomTheta(rand.New(rand.NewPCG(1, 1)), m.NumParams())
	out := make([]float64, m.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		clear(out)
		m.GradSum(theta, data, nil, out)
	}
}
