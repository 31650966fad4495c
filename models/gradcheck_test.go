package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// testModel is a model with every method this package provides.
type testModel interface {
	fullModel
	Validate() error
}

// modelCase is one model variant of the table-driven tests.
type modelCase struct {
	name string
	m    testModel
	// labels draws a label for one row.
	labels func(r *rand.Rand) float64
}

func realLabel(r *rand.Rand) float64 { return 2 * r.NormFloat64() }
func binLabel(r *rand.Rand) float64  { return float64(r.IntN(2)) }
func classLabel(k int) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return float64(r.IntN(k)) }
}

// modelCases returns every model variant: intercept and regulariser on/off,
// every activation with both heads.
func modelCases(d int) []modelCase {
	var cs []modelCase
	for _, icpt := range []bool{false, true} {
		for _, ridge := range []float64{0, 0.7} {
			cs = append(cs, modelCase{fmt.Sprintf("Linear/intercept=%v/ridge=%v", icpt, ridge),
				&Linear{D: d, Intercept: icpt, Ridge: ridge}, realLabel})
			cs = append(cs, modelCase{fmt.Sprintf("Logistic/intercept=%v/l2=%v", icpt, ridge),
				&Logistic{D: d, Intercept: icpt, L2: ridge}, binLabel})
		}
	}
	for _, k := range []int{2, 3} {
		for _, l2 := range []float64{0, 0.3} {
			cs = append(cs, modelCase{fmt.Sprintf("Softmax/k=%d/l2=%v", k, l2),
				&Softmax{D: d, K: k, L2: l2}, classLabel(k)})
		}
	}
	for _, act := range []Activation{Softplus, ReLU, Tanh, SiLU} {
		cs = append(cs, modelCase{fmt.Sprintf("MLP/%v/SoftmaxCE", act),
			&MLP{D: d, H: 5, K: 3, Act: act, Head: HeadSoftmaxCE}, classLabel(3)})
		cs = append(cs, modelCase{fmt.Sprintf("MLP/%v/MSE", act),
			&MLP{D: d, H: 5, K: 1, Act: act, Head: HeadMSE}, realLabel})
	}
	return cs
}

// randomData returns n×d Gaussian features (about 20% exact zeros, to
// exercise the sparse skips) with labels from label.
func randomData(t testing.TB, r *rand.Rand, n, d int, label func(*rand.Rand) float64) *design.Data {
	t.Helper()
	x := make([]float64, n*d)
	for i := range x {
		if r.Float64() < 0.2 {
			continue
		}
		x[i] = r.NormFloat64()
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = label(r)
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// randomTheta returns θ ~ N(0, 0.5²) (the MLP's Init scale is similar).
func randomTheta(r *rand.Rand, p int) []float64 {
	th := make([]float64, p)
	for i := range th {
		th[i] = 0.5 * r.NormFloat64()
	}
	return th
}

// near reports |a−b| ≤ tol·max(1, |a|, |b|) (absolute near 0, relative
// for large values).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// fdGrad returns the central-difference gradient of f at theta.
func fdGrad(f func([]float64) float64, theta []float64, h float64) []float64 {
	g := make([]float64, len(theta))
	th := append([]float64(nil), theta...)
	for j := range th {
		orig := th[j]
		th[j] = orig + h
		fp := f(th)
		th[j] = orig - h
		fm := f(th)
		th[j] = orig
		g[j] = (fp - fm) / (2 * h)
	}
	return g
}

func TestFiniteDifferences(t *testing.T) {
	const n, d, tol, h = 12, 4, 1e-6, 1e-5
	for ci, c := range modelCases(d) {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 7))
			data := randomData(t, r, n, d, c.labels)
			if err := c.m.CheckLabels(data); err != nil {
				t.Fatal(err)
			}
			p := c.m.NumParams()
			theta := randomTheta(r, p)

			// Per-example gradients against d/dθ of the one-row loss.
			idx := []int{3, 0, 7, 7, 11}
			per := make([]float64, len(idx)*p)
			c.m.PerExampleGrads(theta, data, idx, per)
			for k, i := range idx {
				fd := fdGrad(func(th []float64) float64 { return c.m.Loss(th, data, []int{i}) }, theta, h)
				for j := range p {
					if got := per[k*p+j]; !near(got, fd[j], tol) {
						t.Errorf("row %d param %d: per-example grad %.12g, finite difference %.12g", i, j, got, fd[j])
					}
				}
			}

			// GradSum against d/dθ of |idx|·Loss, for a subset and all rows.
			for _, sel := range [][]int{idx, nil} {
				m := numRows(data, sel)
				got := make([]float64, p)
				c.m.GradSum(theta, data, sel, got)
				fd := fdGrad(func(th []float64) float64 { return float64(m) * c.m.Loss(th, data, sel) }, theta, h)
				for j := range p {
					if !near(got[j], fd[j], tol) {
						t.Errorf("idx=%v param %d: GradSum %.12g, finite difference %.12g", sel, j, got[j], fd[j])
					}
				}
			}
		})
	}
}

func TestGradConsistency(t *testing.T) {
	const n, d, tol = 40, 5, 1e-12
	for ci, c := range modelCases(d) {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 11))
			data := randomData(t, r, n, d, c.labels)
			p := c.m.NumParams()
			theta := randomTheta(r, p)
			idx := []int{5, 1, 1, 39, 20, 0, 17}
			for _, sel := range [][]int{idx, nil} {
				rows := numRows(data, sel)
				per := make([]float64, rows*p)
				c.m.PerExampleGrads(theta, data, sel, per)
				w := make([]float64, rows)
				for k := range w {
					w[k] = r.Float64()
				}
				wantSum := make([]float64, p)
				wantW := make([]float64, p)
				for k := range rows {
					for j := range p {
						wantSum[j] += per[k*p+j]
						wantW[j] += w[k] * per[k*p+j]
					}
				}
				// GradSum adds into out: start from 1s.
				got := make([]float64, p)
				gotW := make([]float64, p)
				for j := range got {
					got[j], gotW[j] = 1, 1
				}
				c.m.GradSum(theta, data, sel, got)
				c.m.WeightedGradSum(theta, data, sel, w, gotW)
				for j := range p {
					if !near(got[j]-1, wantSum[j], tol) {
						t.Errorf("idx=%v param %d: GradSum %.15g, Σ per-example %.15g", sel, j, got[j]-1, wantSum[j])
					}
					if !near(gotW[j]-1, wantW[j], tol) {
						t.Errorf("idx=%v param %d: WeightedGradSum %.15g, Σ w·per-example %.15g", sel, j, gotW[j]-1, wantW[j])
					}
				}
				norms := make([]float64, rows)
				c.m.PerExampleGradNorms(theta, data, sel, norms)
				for k := range rows {
					want := math.Sqrt(sumSq(per[k*p : (k+1)*p]))
					if !near(norms[k], want, tol) {
						t.Errorf("idx=%v row %d: norm %.15g, ‖per-example grad‖ %.15g", sel, k, norms[k], want)
					}
				}
			}
			// Loss over all rows equals Evaluate's loss and the mean of
			// single-row losses.
			var mean float64
			for i := range n {
				mean += c.m.Loss(theta, data, []int{i}) / n
			}
			if l, e := c.m.Loss(theta, data, nil), c.m.Evaluate(theta, data).Loss; !near(l, e, tol) || !near(l, mean, tol) {
				t.Errorf("Loss %.15g, Evaluate %.15g, mean of row losses %.15g", l, e, mean)
			}
			if l := c.m.Loss(theta, data, []int{}); !math.IsNaN(l) {
				t.Errorf("Loss of empty index set = %v, want NaN", l)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for ci, c := range modelCases(6) {
		r := rand.New(rand.NewPCG(uint64(ci), 3))
		data := randomData(t, r, 200, 6, c.labels)
		theta := randomTheta(r, c.m.NumParams())
		a := make([]float64, c.m.NumParams())
		b := make([]float64, c.m.NumParams())
		c.m.GradSum(theta, data, nil, a)
		c.m.GradSum(theta, data, nil, b)
		for j := range a {
			if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
				t.Errorf("%s: GradSum not bitwise reproducible at %d: %v vs %v", c.name, j, a[j], b[j])
			}
		}
	}
}

// TestConcurrentUse runs every model's GradSum from several goroutines on
// shared θ and data (run with -race to check the no-shared-state claim).
func TestConcurrentUse(t *testing.T) {
	for ci, c := range modelCases(4) {
		r := rand.New(rand.NewPCG(uint64(ci), 5))
		data := randomData(t, r, 50, 4, c.labels)
		theta := randomTheta(r, c.m.NumParams())
		want := make([]float64, c.m.NumParams())
		c.m.GradSum(theta, data, nil, want)
		outs := make([][]float64, 4)
		done := make(chan int)
		for g := range outs {
			outs[g] = make([]float64, c.m.NumParams())
			go func() {
				c.m.GradSum(theta, data, nil, outs[g])
				done <- g
			}()
		}
		for range outs {
			<-done
		}
		for g, out := range outs {
			if !slices.Equal(out, want) {
				t.Errorf("%s: goroutine %d got %v, want %v", c.name, g, out, want)
			}
		}
	}
}
