package corrdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
	"gonum.org/v1/gonum/mat"
)

// MultinomialLR is a fitted multinomial logistic regression
// P(S = a | u) ∝ exp(w_aᵀu + b_a) (App. D.1, "discrete S, continuous U").
type MultinomialLR struct {
	Model *models.Softmax
	Theta []float64
	K, P  int
}

// FitMultinomialLR fits P(class | u) by maximum likelihood on inputs
// u (n×p row-major) and class codes in [0, k), with damped Newton steps on
// the mean negative log-likelihood plus (l2/2)‖θ‖² (weights and biases).
// l2 ≤ 0 uses 1e-6, just enough to make the over-parametrised softmax
// identifiable and keep separable classes finite (we use an unregularised
// fit, the paper gives no regularisation; 1e-6 is numerically that). With a one-hot u the fit
// reproduces the empirical conditional pmfs (the saturated model), i.e. the
// plug-in. Intended for small p·k (the Hessian is (p+1)k square).
func FitMultinomialLR(u []float64, n, p int, class []int, k int, l2 float64) (*MultinomialLR, error) {
	if n < 1 || p < 1 || k < 2 || len(u) != n*p || len(class) != n {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: n = %d, p = %d, k = %d, %d inputs, %d classes", n, p, k, len(u), len(class))
	}
	if (p+1)*k > maxNewtonParams {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: (p+1)·k = %d parameters is too many for Newton", (p+1)*k)
	}
	y := make([]float64, n)
	for i, c := range class {
		if c < 0 || c >= k {
			return nil, fmt.Errorf("corrdp: FitMultinomialLR: class %d at row %d not in [0, %d)", c, i, k)
		}
		y[i] = float64(c)
	}
	d, err := design.NewData(u, y, n, p)
	if err != nil {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
	}
	sm, err := models.NewSoftmax(p, k)
	if err != nil {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
	}
	if l2 <= 0 {
		l2 = 1e-6
	}
	np := sm.NumParams() // layout: W (p×k, feature j owns W[j*k:(j+1)*k]), then b (k)
	f := func(th []float64) float64 {
		v := sm.Loss(th, d, nil)
		for _, t := range th {
			v += 0.5 * l2 * t * t
		}
		return v
	}
	th := make([]float64, np)
	g := make([]float64, np)
	h := mat.NewSymDense(np, nil)
	hd := make([]float64, np*np)
	cur := f(th)
	for it := 0; it < maxNewtonSteps; it++ {
		lrGradHessian(sm, th, u, n, p, class, k, g, hd)
		if tally != nil {
			tally(true, newtonStepWork(n, np))
		}
		gn := 0.0
		for q := range g {
			g[q] = g[q]/float64(n) + l2*th[q]
			gn = math.Max(gn, math.Abs(g[q]))
		}
		if gn < 1e-9 {
			break
		}
		for a := 0; a < np; a++ {
			for b := a; b < np; b++ {
				v := hd[a*np+b] / float64(n)
				if a == b {
					v += l2
				}
				h.SetSym(a, b, v)
			}
		}
		var ch mat.Cholesky
		if ok := ch.Factorize(h); !ok {
			return nil, errors.New("corrdp: FitMultinomialLR: Hessian not positive definite")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(np, g)); err != nil {
			return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
		}
		var improved bool
		if cur, improved = lineSearch(f, th, &step, cur); !improved {
			break
		}
	}
	return &MultinomialLR{Model: sm, Theta: th, K: k, P: p}, nil
}

// maxNewtonSteps caps FitMultinomialLR's Newton steps; maxNewtonParams
// caps its parameters (p+1)·k (the Hessian is that square).
const (
	maxNewtonSteps  = 100
	maxNewtonParams = 2000
)

// newtonStepWork is the work of one of FitMultinomialLR's Newton steps
// with m parameters on n rows: n·m² to accumulate the Hessian over the
// rows (lrGradHessian) and m³/3 to factorise it (Cholesky); its line
// search's loss evaluations (n·m each, one when the full step is taken)
// are not counted.
func newtonStepWork(n, m int) float64 {
	fm := float64(m)
	return float64(n)*fm*fm + fm*fm*fm/3
}

// errNilMultinomialLR is the panic value of Probs and TV on a nil
// *MultinomialLR: a nil model has no probabilities, and any TV returned
// would set CorrDP's noise.
const errNilMultinomialLR = "corrdp: nil *MultinomialLR: use the model returned by FitMultinomialLR and check its error"

// Probs writes P(class | u) for one input u (len P) into out (len K). It
// panics on a nil *MultinomialLR, naming the fix.
func (m *MultinomialLR) Probs(u, out []float64) {
	if m == nil {
		panic(errNilMultinomialLR)
	}
	m.Model.Predict(m.Theta, u, out)
}

// TV returns ½‖P(·|u1) − P(·|u2)‖₁. It panics on a nil *MultinomialLR,
// naming the fix.
func (m *MultinomialLR) TV(u1, u2 []float64) float64 {
	if m == nil {
		panic(errNilMultinomialLR)
	}
	p, q := make([]float64, m.K), make([]float64, m.K)
	m.Probs(u1, p)
	m.Probs(u2, q)
	var d float64
	for a := range p {
		d += math.Abs(p[a] - q[a])
	}
	return math.Min(1, d/2)
}

// lrGradHessian accumulates into g and hd (cleared first) the sums over
// the rows of the gradient and of the Hessian (np×np, dense) of the
// softmax negative log-likelihood at th; index (j, a) of input j (j = p is
// the bias) in class a is j·k + a, the bias p·k + a.
func lrGradHessian(sm *models.Softmax, th, u []float64, n, p int, class []int, k int, g, hd []float64) {
	np := len(g)
	clear(g)
	clear(hd)
	prob := make([]float64, k)
	xt := make([]float64, p+1)
	widx := func(j, a int) int {
		if j == p {
			return p*k + a
		}
		return j*k + a
	}
	for i := 0; i < n; i++ {
		copy(xt, u[i*p:(i+1)*p])
		xt[p] = 1
		sm.Predict(th, u[i*p:(i+1)*p], prob)
		c := class[i]
		for a := 0; a < k; a++ {
			r := prob[a]
			if a == c {
				r--
			}
			for j := 0; j <= p; j++ {
				g[widx(j, a)] += r * xt[j]
			}
			for b := 0; b < k; b++ {
				w := -prob[a] * prob[b]
				if a == b {
					w += prob[a]
				}
				if w == 0 {
					continue
				}
				for j := 0; j <= p; j++ {
					for l := 0; l <= p; l++ {
						hd[widx(j, a)*np+widx(l, b)] += w * xt[j] * xt[l]
					}
				}
			}
		}
	}
}

// lineSearch halves the step along the damped Newton direction until f
// does not increase (at most 40 times), updates th and returns the new
// value and whether it improved by more than a relative 1e-14.
func lineSearch(f func([]float64) float64, th []float64, step *mat.VecDense, cur float64) (float64, bool) {
	t := 1.0
	next := make([]float64, len(th))
	for ls := 0; ls < 40; ls++ {
		for q := range th {
			next[q] = th[q] - t*step.AtVec(q)
		}
		if v := f(next); v <= cur {
			copy(th, next)
			return v, cur-v > 1e-14*math.Max(1, math.Abs(cur))
		}
		t /= 2
	}
	return cur, false
}
