package models

import (
	"math"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/gemm"
)

// ddpmChunk is the number of rows of one batched DDPM pass (a constant, so
// that gradient sums have the same bits whatever the batch and GOMAXPROCS).
const ddpmChunk = 256

// ddpmPass holds one chunk's batched activations, row-major with one row per
// example: the input u (n×Din), pre-activations z₁, z₂ and activations a₁,
// a₂ (n×H), the noise ε and the residual r = f(u) − ε (n×P), and the
// back-propagated deltas d₁, d₂ (n×H) and d₃ = (2/P)·r (n×P), each row's
// step t and class c (0 when unconditional), and whether the model has the
// second-layer class bias C₂ (DDPM.ClassEveryLayer).
type ddpmPass struct {
	start, n                      int // rows start..start+n−1 of the selection
	u, z1, a1, z2, a2, eps, r, d3 []float64
	d1, d2                        []float64
	t, c                          []int
	classBias                     bool
}

// chunks calls fn on the selected rows ddpmChunk at a time, in order, with
// the inputs filled from the model's key (one pass buffer, reused).
func (m *DDPM) chunks(data *design.Data, idx []int, fn func(ps *ddpmPass)) {
	n := numRows(data, idx)
	var ps ddpmPass
	for start := 0; start < n; start += ddpmChunk {
		ps.fill(m, data, idx, start, min(ddpmChunk, n-start))
		fn(&ps)
	}
}

// resize makes the buffers hold n rows.
func (ps *ddpmPass) resize(m *DDPM, n int) {
	h, din, p := m.Hidden, m.inDim(), m.P
	ps.n = n
	ps.u = grow64(ps.u, n*din)
	ps.z1, ps.a1, ps.z2, ps.a2 = grow64(ps.z1, n*h), grow64(ps.a1, n*h), grow64(ps.z2, n*h), grow64(ps.a2, n*h)
	ps.d1, ps.d2 = grow64(ps.d1, n*h), grow64(ps.d2, n*h)
	ps.eps, ps.r, ps.d3 = grow64(ps.eps, n*p), grow64(ps.r, n*p), grow64(ps.d3, n*p)
	if cap(ps.t) < n {
		ps.t, ps.c = make([]int, n), make([]int, n)
	}
	ps.t, ps.c = ps.t[:n], ps.c[:n]
	ps.classBias = m.classBias()
}

// fill draws (t, ε) of rows start..start+n−1 of the selection and writes
// their inputs u = [√ᾱ_t x₀ + √(1−ᾱ_t) ε, emb(t), onehot(c)].
func (ps *ddpmPass) fill(m *DDPM, data *design.Data, idx []int, start, n int) {
	ps.resize(m, n)
	ps.start = start
	din, p := m.inDim(), m.P
	gemm.ParallelRows(n, din*8, func(r0, r1 int) {
		for k := r0; k < r1; k++ {
			i := rowIndex(idx, start+k)
			eps := ps.eps[k*p : (k+1)*p]
			t := m.Draw(i, eps)
			ps.t[k] = t
			var c int
			if m.Classes > 0 {
				c = classOf(data.Y[i], m.Classes, i)
			}
			ps.c[k] = c
			m.input(ps.u[k*din:(k+1)*din], data.X[i*p:(i+1)*p], eps, t, c, true)
		}
	})
}

// input writes the denoiser input of x (the noised x_t = √ᾱ_t x + √(1−ᾱ_t) ε
// when noise is set, else x itself) at step t and class c into u.
func (m *DDPM) input(u, x, eps []float64, t, c int, noise bool) {
	p := m.P
	if noise {
		sa, sb := math.Sqrt(m.alphaBar[t]), math.Sqrt(1-m.alphaBar[t])
		for j, v := range x {
			u[j] = sa*v + sb*eps[j]
		}
	} else {
		copy(u[:p], x)
	}
	copy(u[p:p+m.Embed], m.emb[t*m.Embed:(t+1)*m.Embed])
	oh := u[p+m.Embed:]
	clear(oh)
	if m.Classes > 0 {
		oh[c] = 1
	}
}

// forward computes z₁, a₁, z₂, a₂ and the residual r = f_θ(u) − ε.
func (m *DDPM) forward(theta []float64, ps *ddpmPass) {
	q := m.split(theta)
	n, h, din, p := ps.n, m.Hidden, m.inDim(), m.P
	dense(n, h, din, ps.u, q.w1, q.b1, ps.z1)
	siluRows(ps.z1[:n*h], ps.a1[:n*h])
	m.hidden2(q, ps)
	siluRows(ps.z2[:n*h], ps.a2[:n*h])
	dense(n, p, h, ps.a2, q.w3, q.b3, ps.r)
	for j := range ps.r[:n*p] {
		ps.r[j] -= ps.eps[j]
	}
}

// dense writes z = x·Wᵀ + b for x n×in and W out×in (row-major).
func dense(n, out, in int, x, w, b, z []float64) {
	z = z[:n*out]
	for k := range n {
		copy(z[k*out:(k+1)*out], b)
	}
	gemm.NT(n, out, in, x, in, w, in, z, out)
}

// hidden2 writes z₂ = a₁W₂ᵀ + b₂ (+ C₂[c] per row with the class bias).
func (m *DDPM) hidden2(q ddpmParams, ps *ddpmPass) {
	if !ps.classBias {
		dense(ps.n, m.Hidden, m.Hidden, ps.a1, q.w2, q.b2, ps.z2)
		return
	}
	h := m.Hidden
	z := ps.z2[:ps.n*h]
	for k, c := range ps.c {
		row := z[k*h : (k+1)*h]
		for j, b := range q.b2 {
			row[j] = b + q.c2[c*h+j]
		}
	}
	gemm.NT(ps.n, h, h, ps.a1, h, q.w2, h, z, h)
}

// backward writes d₃ = (2/P)r, d₂ = (d₃W₃) ⊙ s'(z₂) and d₁ = (d₂W₂) ⊙ s'(z₁).
func (m *DDPM) backward(theta []float64, ps *ddpmPass) {
	q := m.split(theta)
	n, h, p := ps.n, m.Hidden, m.P
	c := 2 / float64(p)
	for j, v := range ps.r[:n*p] {
		ps.d3[j] = c * v
	}
	clear(ps.d2[:n*h])
	gemm.NN(n, h, p, ps.d3, p, q.w3, h, ps.d2, h)
	siluBack(ps.z2[:n*h], ps.d2[:n*h])
	clear(ps.d1[:n*h])
	gemm.NN(n, h, h, ps.d2, h, q.w2, h, ps.d1, h)
	siluBack(ps.z1[:n*h], ps.d1[:n*h])
}

// accumulate adds Σ_k w_k ∇ℓ_k of the chunk into out (w nil: all 1). It
// scales the deltas in place.
func (m *DDPM) accumulate(ps *ddpmPass, w []float64, out []float64) {
	g := m.split(out)
	n, h, din, p := ps.n, m.Hidden, m.inDim(), m.P
	if w != nil {
		for k, wk := range w {
			scaleRow(ps.d3[k*p:(k+1)*p], wk)
			scaleRow(ps.d2[k*h:(k+1)*h], wk)
			scaleRow(ps.d1[k*h:(k+1)*h], wk)
		}
	}
	gemm.TN(p, h, n, ps.d3, p, ps.a2, h, g.w3, h)
	gemm.TN(h, h, n, ps.d2, h, ps.a1, h, g.w2, h)
	gemm.TN(h, din, n, ps.d1, h, ps.u, din, g.w1, din)
	colSums(ps.d3, n, p, g.b3)
	colSums(ps.d2, n, h, g.b2)
	colSums(ps.d1, n, h, g.b1)
	if ps.classBias {
		for k, c := range ps.c {
			axpy(1, ps.d2[k*h:(k+1)*h], g.c2[c*h:(c+1)*h])
		}
	}
}

// loss returns ℓ of chunk row k: (1/P)‖r_k‖².
func (ps *ddpmPass) loss(k int) float64 {
	p := len(ps.r) / max(ps.n, 1)
	r := ps.r[k*p : (k+1)*p]
	return sumSq(r) / float64(p)
}

// layers returns, per dense layer, the deltas and inputs of chunk row k.
func (ps *ddpmPass) layers(k int) [3][2][]float64 {
	n := ps.n
	h, din, p := len(ps.d1)/n, len(ps.u)/n, len(ps.r)/n
	return [3][2][]float64{
		{ps.d1[k*h : (k+1)*h], ps.u[k*din : (k+1)*din]},
		{ps.d2[k*h : (k+1)*h], ps.a1[k*h : (k+1)*h]},
		{ps.d3[k*p : (k+1)*p], ps.a2[k*h : (k+1)*h]},
	}
}

// normSq returns ‖∇ℓ_k‖² = Σ_layers ‖δ‖²(‖a‖² + 1), plus ‖δ₂‖² for the
// class bias (the row C₂[c] receives δ₂).
func (ps *ddpmPass) normSq(k int) float64 {
	var s float64
	layers := ps.layers(k)
	for _, l := range layers {
		s += sumSq(l[0]) * (sumSq(l[1]) + 1)
	}
	if ps.classBias {
		s += sumSq(layers[1][0])
	}
	return s
}

// diffNormSq returns ‖∇ℓ_k(a) − ∇ℓ_k(b)‖² from the rank-2 identity.
func diffNormSq(a, b *ddpmPass, k int) float64 {
	la, lb := a.layers(k), b.layers(k)
	var s float64
	for l := range la {
		d, x := la[l][0], la[l][1]
		d2, x2 := lb[l][0], lb[l][1]
		dd := dot(d, d2)
		s += sumSq(d)*sumSq(x) + sumSq(d2)*sumSq(x2) - 2*dd*dot(x, x2)
		s += sumSq(d) + sumSq(d2) - 2*dd // bias: ‖δ − δ'‖²
	}
	if a.classBias { // C₂ rows c and c': ‖δ₂e_cᵀ − δ₂'e_c'ᵀ‖²
		d, d2 := la[1][0], lb[1][0]
		s += sumSq(d) + sumSq(d2)
		if a.c[k] == b.c[k] {
			s -= 2 * dot(d, d2)
		}
	}
	return s
}

// exampleGrad writes the gradient of chunk row k into the blocks g.
func (ps *ddpmPass) exampleGrad(k int, g ddpmParams) {
	l := ps.layers(k)
	outer(l[0][0], l[0][1], g.w1)
	copy(g.b1, l[0][0])
	outer(l[1][0], l[1][1], g.w2)
	copy(g.b2, l[1][0])
	if ps.classBias {
		clear(g.c2)
		copy(g.c2[ps.c[k]*len(g.b2):], l[1][0])
	}
	outer(l[2][0], l[2][1], g.w3)
	copy(g.b3, l[2][0])
}

// outer writes d aᵀ into w (len(d)×len(a), row-major).
func outer(d, a, w []float64) {
	na := len(a)
	for i, di := range d {
		row := w[i*na : (i+1)*na]
		for j, aj := range a {
			row[j] = di * aj
		}
	}
}

// siluRows writes a = z·σ(z) (8 lanes at a time with the same bits where
// the build has them, vecmath_simd.go).
var siluRows = func(z, a []float64) {
	for j, v := range z {
		a[j] = v * sigmoid(v)
	}
}

// siluBack multiplies d by s'(z) = σ(z)(1 + z(1 − σ(z))) (8 lanes at a
// time with the same bits where the build has them).
var siluBack = func(z, d []float64) {
	for j, v := range z {
		s := sigmoid(v)
		d[j] *= s * (1 + v*(1-s))
	}
}

// scaleRow multiplies v by c.
func scaleRow(v []float64, c float64) {
	for j := range v {
		v[j] *= c
	}
}

// colSums adds the column sums of the n×c matrix x (rows in order) into out.
func colSums(x []float64, n, c int, out []float64) {
	for k := range n {
		for j, v := range x[k*c : (k+1)*c] {
			out[j] += v
		}
	}
}

// grow64 returns s resized to n.
func grow64(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
