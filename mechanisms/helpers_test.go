package mechanisms

import (
	"math"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// lsq is least squares ℓ = ½(θ·x − y)² with P = D (no ghost clipping).
type lsq struct{ d int }

func (m lsq) NumParams() int   { return m.d }
func (m lsq) NumFeatures() int { return m.d }
func (m lsq) resid(theta []float64, data *design.Data, i int) float64 {
	var z float64
	for j, v := range data.Row(i) {
		z += theta[j] * v
	}
	return z - data.Y[i]
}
func (m lsq) Loss(theta []float64, data *design.Data, idx []int) float64 {
	var s float64
	n := 0
	each(data, idx, func(i int) { r := m.resid(theta, data, i); s += r * r / 2; n++ })
	return s / float64(n)
}
func (m lsq) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	each(data, idx, func(i int) {
		r := m.resid(theta, data, i)
		for j, v := range data.Row(i) {
			out[j] += r * v
		}
	})
}
func (m lsq) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	for k, i := range idx {
		r := m.resid(theta, data, i)
		for j, v := range data.Row(i) {
			out[k*m.d+j] = r * v
		}
	}
}
func (m lsq) FeatureParams(j int) []int { return []int{j} }

// ghostLSQ adds the ghost-clipping interfaces to lsq.
type ghostLSQ struct{ lsq }

func (m ghostLSQ) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	k := 0
	each(data, idx, func(i int) {
		r := m.resid(theta, data, i)
		var ss float64
		for _, v := range data.Row(i) {
			ss += v * v
		}
		out[k] = math.Abs(r) * math.Sqrt(ss)
		k++
	})
}
func (m ghostLSQ) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	k := 0
	each(data, idx, func(i int) {
		r := m.resid(theta, data, i) * w[k]
		for j, v := range data.Row(i) {
			out[j] += r * v
		}
		k++
	})
}

// linear is ℓ = θ·x: its gradient x does not depend on θ (a constant
// per-example gradient, for noise and audit tests).
type linear struct{ d int }

func (m linear) NumParams() int   { return m.d }
func (m linear) NumFeatures() int { return m.d }
func (m linear) Loss(theta []float64, data *design.Data, idx []int) float64 {
	var s float64
	n := 0
	each(data, idx, func(i int) {
		for j, v := range data.Row(i) {
			s += theta[j] * v
		}
		n++
	})
	return s / float64(n)
}
func (m linear) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	each(data, idx, func(i int) {
		for j, v := range data.Row(i) {
			out[j] += v
		}
	})
}
func (m linear) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	for k, i := range idx {
		copy(out[k*m.d:(k+1)*m.d], data.Row(i))
	}
}
func (m linear) FeatureParams(j int) []int { return []int{j} }

func each(data *design.Data, idx []int, f func(i int)) {
	if idx == nil {
		for i := range data.N {
			f(i)
		}
		return
	}
	for _, i := range idx {
		f(i)
	}
}

// regression returns a seeded dataset y = x·w* + noise with w* = (1, −2, 0.5, …).
func regression(t testing.TB, n, d int, seed uint64) (*design.Data, []float64) {
	t.Helper()
	rng := NewStreams(seed).Rand("data")
	w := make([]float64, d)
	for j := range w {
		w[j] = []float64{1, -2, 0.5, 3, -1}[j%5]
	}
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		var z float64
		for j := range d {
			v := rng.NormFloat64()
			x[i*d+j] = v
			z += v * w[j]
		}
		y[i] = z + 0.1*rng.NormFloat64()
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data, w
}

func mustData(t testing.TB, x, y []float64, n, d int) *design.Data {
	t.Helper()
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func meanVar(xs []float64) (float64, float64) {
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}
