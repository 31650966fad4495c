package models

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/cores"
)

// MLPBlock computes the full-batch gradient sums of a one-hidden-layer
// Softplus MLP with the squared-error head (HeadMSE) for many parameter
// vectors ("lanes", one per training run) over the same data, the lanes
// side by side in SIMD registers where built (see LogisticBlock for the
// GOEXPERIMENT=simd build). The result for lane r is
// Σ_i ∇ℓ(θ_r; x_i, y_i), the quantity MLP.GradSum computes over all rows.
//
// Per lane and row, in this order: a_u = b1_u + Σ_j x_j W1_ju (FMA chain
// in j), e = blockExp(max(−|a_u|, −708)), φ(a_u) = max(a_u, 0) +
// blockLog1p(e), φ'(a_u) = 1/(1+e) or e·(1/(1+e)); o = b2 + Σ_u φ_u W2_u
// (FMA chain in u); δ2 = (o − y)·2; the gradient sums take δ2, φ_u·δ2 and
// δ1_u = φ'_u·(W2_u·δ2) and x_j·δ1_u row by row. The portable and SIMD
// paths give bit-identical results, which differ from MLP.GradSum in the
// last bits (another exponential, logarithm and summation order).
//
// The groups of mlpLanes lanes run in parallel on the cores the callers
// leave idle (internal/cores); a lane's arithmetic is its own, so the
// bits do not depend on the number of cores.
type MLPBlock struct {
	m      *MLP
	data   *design.Data
	groups []mlpGroup // scratch of each lane group
}

// mlpGroup is the scratch space of one group of mlpLanes lanes.
type mlpGroup struct {
	th, g  []float64 // packed P × mlpLanes
	hs, ds []float64 // per-row scratch: H × mlpLanes activations and derivatives
}

// mlpLanes is the number of lanes one MLP kernel call processes.
const mlpLanes = 4

// NewMLPBlock returns an MLPBlock for m over data. It returns an error
// unless m has the Softplus activation and the HeadMSE head, or if the
// data do not have m.D columns. An MLPBlock holds scratch space: use one
// per goroutine.
func NewMLPBlock(m *MLP, data *design.Data) (*MLPBlock, error) {
	if m == nil || data == nil {
		return nil, fmt.Errorf("models: NewMLPBlock: nil model or data")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Act != Softplus || m.Head != HeadMSE {
		return nil, fmt.Errorf("models: NewMLPBlock: %v activation with %v head; the block kernel covers Softplus with MSE", m.Act, m.Head)
	}
	if data.D != m.D || data.N <= 0 || len(data.X) != data.N*data.D || len(data.Y) != data.N {
		return nil, fmt.Errorf("models: NewMLPBlock: data with %d rows × %d columns, model %d inputs", data.N, data.D, m.D)
	}
	return &MLPBlock{m: m, data: data}, nil
}

// group returns the scratch of lane group k, allocating groups up to k.
func (b *MLPBlock) group(k int) *mlpGroup {
	p, h := b.m.NumParams(), b.m.H
	for len(b.groups) <= k {
		b.groups = append(b.groups, mlpGroup{th: make([]float64, p*mlpLanes), g: make([]float64, p*mlpLanes),
			hs: make([]float64, h*mlpLanes), ds: make([]float64, h*mlpLanes)})
	}
	return &b.groups[k]
}

// GradSums writes the full-batch gradient sum of thetas[r] into outs[r]
// (overwriting it) for every r. Every θ and out must have NumParams()
// entries.
func (b *MLPBlock) GradSums(thetas, outs [][]float64) error {
	if b == nil || b.m == nil {
		return fmt.Errorf("models: MLPBlock.GradSums: nil *MLPBlock or zero MLPBlock (make one with NewMLPBlock)")
	}
	if len(thetas) != len(outs) {
		return fmt.Errorf("models: MLPBlock.GradSums: %d parameter vectors, %d outputs", len(thetas), len(outs))
	}
	p := b.m.NumParams()
	for r := range thetas {
		if len(thetas[r]) != p || len(outs[r]) != p {
			return fmt.Errorf("models: MLPBlock.GradSums: lane %d has %d parameters and %d outputs, want %d", r, len(thetas[r]), len(outs[r]), p)
		}
	}
	const L = mlpLanes
	ng := (len(thetas) + L - 1) / L
	b.group(ng - 1)
	w := claimWorkers(ng) // the lane groups on the idle cores (internal/cores)
	defer cores.Release(w - 1)
	forEach(ng, w, func(k int) {
		g0 := k * L
		b.groups[k].run(b, thetas[g0:min(len(thetas), g0+L)], outs[g0:])
	})
	return nil
}

// run computes the gradient sums of up to mlpLanes lanes into outs.
func (gr *mlpGroup) run(b *MLPBlock, thetas, outs [][]float64) {
	const L = mlpLanes
	clear(gr.th)
	clear(gr.g)
	for l, th := range thetas {
		for j, v := range th {
			gr.th[j*L+l] = v
		}
	}
	mlpBlockKernel(b.data.X, b.data.Y, b.data.N, b.m.D, b.m.H, gr.th, gr.g, gr.hs, gr.ds)
	for l := range thetas {
		out := outs[l]
		for j := range out {
			out[j] = gr.g[j*L+l]
		}
	}
}

// mlpBlockKernel is the kernel of GradSums (SIMD where built).
var mlpBlockKernel = mlpBlockPortable

// bexpLn2 is ln 2 rounded to float64.
const bexpLn2 = 0.693147180559945309417232121458176568

// blog1pC are 1/(2k+1), k = 10 … 0, the series atanh(s)/s = Σ s^{2k}/(2k+1).
var blog1pC = [11]float64{1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3, 1}

// blockLog1p returns log(1+e) for e ∈ [0, 1]: with s = e/(2+e) (e ≤ √2−1)
// or s = (e−1)/(e+3) and ln 2 added (e > √2−1), so |s| ≤ 0.1716,
// log(1+e) = 2·atanh(s) [+ ln 2] = fma(2s, Σ_{k≤10} s^{2k}/(2k+1), [ln 2]).
// It is the scalar twin of the SIMD lane code.
func blockLog1p(e float64) float64 {
	num, den, add := e, e+2, 0.0
	if e > math.Sqrt2-1 {
		num, den, add = e-1, e+3, bexpLn2
	}
	s := num / den
	s2 := s * s
	q := blog1pC[0]
	for _, c := range blog1pC[1:] {
		q = math.FMA(q, s2, c)
	}
	return math.FMA(s+s, q, add)
}

// blockSoftplus returns φ(a) = softplus(a) and φ'(a) = σ(a) from one
// exponential, as the MLP block kernels do.
func blockSoftplus(a float64) (h, dh float64) {
	e := blockExpNegAbs(a)
	r := 1 / (1 + e)
	pos := 0.0
	if a > 0 {
		pos = a
	}
	h = pos + blockLog1p(e)
	if a >= 0 {
		return h, r
	}
	return h, e * r
}

// mlpBlockPortable processes one group of mlpLanes lanes; th and g are
// P × mlpLanes (lane-minor) in the MLP's parameter layout (K = 1).
func mlpBlockPortable(x, y []float64, n, d, H int, th, g, hs, ds []float64) {
	const L = mlpLanes
	oB1, oW2, oB2 := d*H, d*H+H, d*H+2*H
	for i := range n {
		row := x[i*d : i*d+d]
		for l := range L {
			for u := range H {
				a := th[(oB1+u)*L+l]
				for j, xv := range row {
					a = math.FMA(xv, th[(j*H+u)*L+l], a)
				}
				hs[u*L+l], ds[u*L+l] = blockSoftplus(a)
			}
			o := th[oB2*L+l]
			for u := range H {
				o = math.FMA(hs[u*L+l], th[(oW2+u)*L+l], o)
			}
			del := (o - y[i]) * 2
			g[oB2*L+l] += del
			for u := range H {
				g[(oW2+u)*L+l] = math.FMA(hs[u*L+l], del, g[(oW2+u)*L+l])
				d1 := ds[u*L+l] * (th[(oW2+u)*L+l] * del)
				g[(oB1+u)*L+l] += d1
				for j, xv := range row {
					g[(j*H+u)*L+l] = math.FMA(xv, d1, g[(j*H+u)*L+l])
				}
			}
		}
	}
}
