package models

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sample draws one image per entry of classes (a class index, or anything
// for an unconditional model) with the ancestral sampler of Ho et al. (2020,
// Algorithm 2) in the form of their released code (clipped x̂₀): at t =
// T−1, …, 0, from x_T ~ N(0, I),
//
//	x̂₀ = clip((x_t − √(1−ᾱ_t)·f_θ(x_t, t, c))/√ᾱ_t, −1, 1),
//	x_{t−1} = √ᾱ_{t−1}β_t/(1−ᾱ_t)·x̂₀ + √(1−β_t)(1−ᾱ_{t−1})/(1−ᾱ_t)·x_t + σ_t·z,
//	σ_t² = β_t(1−ᾱ_{t−1})/(1−ᾱ_t),  z ~ N(0, I)  (ᾱ_{−1} = 1: x_{−1} = x̂₀),
//
// the mean of the posterior q(x_{t−1} | x_t, x̂₀) plus its noise. It returns
// the images row after row (len(classes)×P) in [−1, 1]. All normals come
// from rng in a fixed order, so the same rng state gives the same images
// whatever GOMAXPROCS is.
func (m *DDPM) Sample(theta []float64, classes []int, rng *rand.Rand) ([]float64, error) {
	if m == nil {
		return nil, errNilModel("DDPM", "NewDDPM")
	}
	switch {
	case len(theta) != m.NumParams():
		return nil, fmt.Errorf("%w: θ has %d values, the model %d", ErrDDPMSample, len(theta), m.NumParams())
	case rng == nil:
		return nil, fmt.Errorf("%w: nil rng", ErrDDPMSample)
	}
	for i, c := range classes {
		if m.Classes > 0 && (c < 0 || c >= m.Classes) {
			return nil, fmt.Errorf("%w: class %d at %d, want in [0, %d)", ErrDDPMSample, c, i, m.Classes)
		}
	}
	p := m.P
	out := make([]float64, len(classes)*p)
	for j := range out {
		out[j] = rng.NormFloat64()
	}
	var ps ddpmPass
	for start := 0; start < len(classes); start += ddpmChunk {
		n := min(ddpmChunk, len(classes)-start)
		ps.resize(m, n)
		clear(ps.eps)
		x := out[start*p : (start+n)*p]
		for t := m.Steps - 1; t >= 0; t-- {
			m.denoiseStep(theta, &ps, x, classes[start:start+n], t, rng)
		}
	}
	for j, v := range out {
		out[j] = min(1, max(-1, v))
	}
	return out, nil
}

// denoiseStep replaces the rows x (n×P) of x_t by x_{t−1}.
func (m *DDPM) denoiseStep(theta []float64, ps *ddpmPass, x []float64, classes []int, t int, rng *rand.Rand) {
	p, din := m.P, m.inDim()
	for k := range ps.n {
		c := 0
		if m.Classes > 0 {
			c = classes[k]
		}
		ps.c[k] = c
		m.input(ps.u[k*din:(k+1)*din], x[k*p:(k+1)*p], nil, t, c, false)
	}
	m.forward(theta, ps) // r = f_θ(x_t, t, c), since ε = 0
	ab, b := m.alphaBar[t], m.betas[t]
	abPrev := 1.0
	if t > 0 {
		abPrev = m.alphaBar[t-1]
	}
	c0 := math.Sqrt(abPrev) * b / (1 - ab)
	ct := math.Sqrt(1-b) * (1 - abPrev) / (1 - ab)
	sd := math.Sqrt(b * (1 - abPrev) / (1 - ab))
	sa, sb := math.Sqrt(ab), math.Sqrt(1-ab)
	for j := range x {
		x0 := min(1, max(-1, (x[j]-sb*ps.r[j])/sa))
		x[j] = c0*x0 + ct*x[j]
		if t > 0 {
			x[j] += sd * rng.NormFloat64()
		}
	}
}
