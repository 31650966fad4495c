package mechanisms

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
)

// Optimizer turns noisy gradients into parameter updates. All optimizers
// here are post-processing of the released noisy gradients,
// so they do not affect the privacy accounting.
type Optimizer interface {
	// Validate returns an error if the hyper-parameters are invalid.
	Validate() error
	// NewState returns a fresh per-run state for numParams parameters.
	NewState(numParams int) OptimizerState
}

// OptimizerState is the per-run state of an Optimizer (momentum buffers,
// Adam moments, the step count).
type OptimizerState interface {
	// Step updates theta in place from the gradient g, with the learning
	// rate multiplied by lrScale (the schedule value at this step). theta
	// and g must have the length given to NewState.
	Step(theta, g []float64, lrScale float64)
}

// checkLR validates a learning rate.
func checkLR(name string, lr float64) error {
	if !valid.Finite(lr) || lr <= 0 {
		return fmt.Errorf("mechanisms: %s: learning rate = %v, want finite > 0", name, lr)
	}
	return nil
}

// SGD is plain gradient descent: θ ← θ − η_t·g with η_t = LR·schedule(t).
type SGD struct {
	// LR is the base learning rate η > 0 (no default).
	LR float64
}

// Validate returns an error unless LR is finite and > 0.
func (o SGD) Validate() error { return checkLR("SGD", o.LR) }

// NewState returns the (stateless) SGD step.
func (o SGD) NewState(int) OptimizerState { return sgdState{lr: o.LR} }

type sgdState struct{ lr float64 }

func (s sgdState) Step(theta, g []float64, lrScale float64) {
	eta := s.lr * lrScale
	g = g[:len(theta)]
	for j := range theta {
		theta[j] -= eta * g[j]
	}
}

// Momentum is heavy-ball SGD in the PyTorch form (dampening 0, no
// Nesterov): v ← β·v + g, θ ← θ − η_t·v, with v₀ = 0.
type Momentum struct {
	// LR is the base learning rate η > 0 (no default).
	LR float64
	// Beta is the momentum β ∈ [0, 1); 0 is plain SGD (e.g. 0.9 in
	// docs/feature-dp.md's Purchase100 runs).
	Beta float64
}

// Validate returns an error unless LR > 0 and β ∈ [0, 1).
func (o Momentum) Validate() error {
	if err := checkLR("Momentum", o.LR); err != nil {
		return err
	}
	if !(o.Beta >= 0 && o.Beta < 1) {
		return fmt.Errorf("mechanisms: Momentum: β = %v, want in [0, 1)", o.Beta)
	}
	return nil
}

// NewState returns a momentum state with v = 0.
func (o Momentum) NewState(p int) OptimizerState {
	return &momentumState{o: o, v: make([]float64, max(p, 0))}
}

type momentumState struct {
	o Momentum
	v []float64
}

func (s *momentumState) Step(theta, g []float64, lrScale float64) {
	eta := s.o.LR * lrScale
	v, g := s.v[:len(theta)], g[:len(theta)]
	for j := range theta {
		v[j] = s.o.Beta*v[j] + g[j]
		theta[j] -= eta * v[j]
	}
}

// Adam is Kingma & Ba (2015) with bias correction:
//
//	m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²,
//	θ ← θ − η_t · (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε).
//
// Zero Beta1, Beta2 and Eps select the usual defaults 0.9, 0.999 and 1e-8.
type Adam struct {
	// LR is the base learning rate η > 0 (no default).
	LR float64
	// Beta1 ∈ [0, 1) is the first-moment decay; 0 means 0.9.
	Beta1 float64
	// Beta2 ∈ [0, 1) is the second-moment decay; 0 means 0.999.
	Beta2 float64
	// Eps > 0 is added to the denominator; 0 means 1e-8.
	Eps float64
}

// withDefaults fills in the zero fields.
func (o Adam) withDefaults() Adam {
	if o.Beta1 == 0 {
		o.Beta1 = 0.9
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	return o
}

// Validate returns an error unless LR > 0, β₁, β₂ ∈ [0, 1) and ε > 0
// (after defaults).
func (o Adam) Validate() error {
	if err := checkLR("Adam", o.LR); err != nil {
		return err
	}
	d := o.withDefaults()
	if !(d.Beta1 >= 0 && d.Beta1 < 1) {
		return fmt.Errorf("mechanisms: Adam: β₁ = %v, want in [0, 1)", o.Beta1)
	}
	if !(d.Beta2 >= 0 && d.Beta2 < 1) {
		return fmt.Errorf("mechanisms: Adam: β₂ = %v, want in [0, 1)", o.Beta2)
	}
	if !valid.Finite(d.Eps) || d.Eps <= 0 {
		return fmt.Errorf("mechanisms: Adam: ε = %v, want finite > 0", o.Eps)
	}
	return nil
}

// NewState returns an Adam state with zero moments.
func (o Adam) NewState(p int) OptimizerState {
	return &adamState{o: o.withDefaults(), m: make([]float64, max(p, 0)), v: make([]float64, max(p, 0)), b1t: 1, b2t: 1}
}

type adamState struct {
	o        Adam
	m, v     []float64
	b1t, b2t float64 // β₁ᵗ, β₂ᵗ
}

func (s *adamState) Step(theta, g []float64, lrScale float64) {
	o := s.o
	s.b1t *= o.Beta1
	s.b2t *= o.Beta2
	c1, c2 := 1-s.b1t, 1-s.b2t
	eta := o.LR * lrScale
	m, v, g := s.m[:len(theta)], s.v[:len(theta)], g[:len(theta)]
	for j := range theta {
		m[j] = o.Beta1*m[j] + (1-o.Beta1)*g[j]
		v[j] = o.Beta2*v[j] + (1-o.Beta2)*g[j]*g[j]
		theta[j] -= eta * (m[j] / c1) / (math.Sqrt(v[j]/c2) + o.Eps)
	}
}

// Schedule is a learning-rate multiplier: at private step t = 1, 2, … the
// optimizer uses LR·s(t). Values must be finite and ≥ 0 (Train stops with
// an error otherwise). A nil Schedule is Constant.
type Schedule func(t int) float64

// Constant returns the schedule s(t) = 1.
func Constant() Schedule { return func(int) float64 { return 1 } }

// InverseSqrt returns s(t) = 1/√t, i.e. η_t = LR/√t (the step size
// η(t) = c/√t of Thm 6 of the feature-DP paper).
func InverseSqrt() Schedule { return func(t int) float64 { return 1 / math.Sqrt(float64(t)) } }
