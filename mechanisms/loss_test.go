package mechanisms

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// TestReleaseLoss: every release reports the loss it was calibrated for —
// pure ε for Laplace, the continuous Gaussian (Reproducible) or the discrete
// Gaussian's zCDP ρ (Secure) — within float64 rounding of the requested
// ε or Δ²/(2σ²), under the relation the caller names.
func TestReleaseLoss(t *testing.T) {
	value := []float64{0.3, -1.7, 12.5}
	const eps, l1, l2, sigma = 0.7, 2.0, 1.5, 3.0
	rho := l2 * l2 / (2 * sigma * sigma)
	for _, tc := range []struct {
		name     string
		release  func() (*Release, error)
		kind     accounting.LossKind
		eps, rho float64 // the expected pure ε, or zCDP ρ
	}{
		{"Laplace/Reproducible", func() (*Release, error) { return LaplaceRelease(Reproducible, NewStreams(1), value, l1, eps) }, accounting.LossPure, eps, 0},
		{"Laplace/Secure", func() (*Release, error) { return LaplaceRelease(Secure, nil, value, l1, eps) }, accounting.LossPure, eps, 0},
		{"Gaussian/Reproducible", func() (*Release, error) { return GaussianRelease(Reproducible, NewStreams(1), value, l2, sigma) }, accounting.LossGaussian, 0, rho},
		{"Gaussian/Secure", func() (*Release, error) { return GaussianRelease(Secure, nil, value, l2, sigma) }, accounting.LossZCDP, 0, rho},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.release()
			if err != nil {
				t.Fatal(err)
			}
			l, err := r.Loss(accounting.RelationReplaceOne)
			if err != nil {
				t.Fatal(err)
			}
			if l.Kind() != tc.kind || l.Relation() != accounting.RelationReplaceOne {
				t.Fatalf("loss %v: kind %v relation %v, want %v under replace-one", l, l.Kind(), l.Relation(), tc.kind)
			}
			// A Secure release's noise is calibrated exactly to the requested ε
			// or ρ = Δ²/(2σ²): its reported loss is never below that (exact
			// rational comparison), and above it by float64 rounding only.
			if tc.kind == accounting.LossPure {
				got, d, _ := l.ApproxDP()
				if d != 0 || math.Abs(got-tc.eps) > 1e-12*tc.eps {
					t.Errorf("pure loss (%v, %v), want ε = %v", got, d, tc.eps)
				}
				if r.Mode == Secure && new(big.Rat).SetFloat64(got).Cmp(new(big.Rat).SetFloat64(tc.eps)) < 0 {
					t.Errorf("Secure pure loss ε = %v below the calibrated %v", got, tc.eps)
				}
				return
			}
			got, ok := l.Rho()
			if !ok || math.Abs(got-tc.rho) > 1e-12*tc.rho {
				t.Errorf("ρ = %v (%v), want %v", got, ok, tc.rho)
			}
			exact := new(big.Rat).SetFrac64(int64(l2*l2*4), int64(2*sigma*sigma*4)) // Δ = 1.5, σ = 3: 9/72
			if r.Mode == Secure && new(big.Rat).SetFloat64(got).Cmp(exact) < 0 {
				t.Errorf("Secure ρ = %v below the calibrated %v", got, exact.FloatString(20))
			}
		})
	}
}

// TestReleaseLossErrors: a release whose loss cannot be known is an error,
// never a guess.
func TestReleaseLossErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Release
		want string
	}{
		{"nil", nil, "nil *Release: use the release returned by LaplaceRelease"},
		{"unknown kind", &Release{Scale: 1, Sensitivity: 1}, "unknown noise kind"},
		{"no sensitivity", &Release{Kind: GaussianNoise, Scale: 1}, "sensitivity"},
		{"NaN scale", &Release{Kind: LaplaceNoise, Scale: math.NaN(), Sensitivity: 1}, "scale"},
	} {
		if _, err := tc.r.Loss(accounting.RelationAddRemove); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestResultLosses: a run's phases become subsampled-Gaussian losses under
// add/remove that compose on a ledger to the accountant's own ε, and change
// to feature DP's simulator relation for Algorithm 1; a run without phases
// is an error that says why.
func TestResultLosses(t *testing.T) {
	phases := []accounting.Phase{{SampleRate: 0.02, NoiseMultiplier: 1.1, Steps: 300}, {SampleRate: 0.05, NoiseMultiplier: 2, Steps: 100}}
	losses, err := (&Result{Phases: phases}).Losses()
	if err != nil {
		t.Fatal(err)
	}
	L, err := accounting.NewLedger(accounting.RelationAddRemove, accounting.DefaultOrders())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range losses {
		if err := L.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := L.Epsilon(1e-5, accounting.DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := accounting.Epsilon(phases, 1e-5, accounting.DefaultOrders(), accounting.DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Epsilon > want*(1+1e-12) || rep.Epsilon < want*(1-1e-9) {
		t.Errorf("ledger ε = %v, accountant ε = %v", rep.Epsilon, want)
	}
	if _, err := losses[0].ChangeRelation(accounting.RelationFeatureSimulator); err != nil {
		t.Errorf("subsampled Gaussian → feature simulator: %v", err)
	}
	if _, err := (&Result{PhasesNote: "Semi plan"}).Losses(); err == nil || !strings.Contains(err.Error(), "Semi plan") {
		t.Errorf("empty phases: err = %v, want PhasesNote", err)
	}
	if _, err := (*Result)(nil).Losses(); err == nil {
		t.Error("nil result: no error")
	}
}
