package dpnb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/fdp"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
)

// ReleaseCheck is what a release costs in accuracy: the test metric of the
// private model beside the same model trained without privacy and on the
// public columns alone, with the same encoding, steps and batch size.
// Metric is "accuracy" (classification) or "mse" (regression: in the
// label's units, of Predict's values against the test labels as they are,
// not clipped to the public bounds).
//
// The baselines and every number here are computed on the private data
// without any privacy: they are for your own decision, not for
// publication (publish the model file and its certificate).
type ReleaseCheck struct {
	Model                           *release.File
	Metric                          string
	Private, NonPrivate, PublicOnly float64
}

// CheckRelease trains a release on train (Train with opts) and reports its
// test metric on test beside the non-private and public-only baselines
// (the feature-DP paper's two reference points: what privacy costs, and
// what the protected columns add).
func CheckRelease(ctx context.Context, train, test dataframe.DataFrame, schema data.Schema, opts TrainOptions) (*ReleaseCheck, error) {
	o, enc, cal, err := prepareTrain(schema, opts)
	if err != nil {
		return nil, err
	}
	xTrain, err := enc.Transform(train)
	if err != nil {
		return nil, fmt.Errorf("dpnb: CheckRelease: train: %w", err)
	}
	xTest, err := enc.Transform(test)
	if err != nil {
		return nil, fmt.Errorf("dpnb: CheckRelease: test: %w", err)
	}
	testData, err := design.NewData(xTest.X, xTest.Y, xTest.N, xTest.D)
	if err != nil {
		return nil, fmt.Errorf("dpnb: CheckRelease: %w", err)
	}
	f, run, err := trainEncoded(ctx, enc, xTrain, o, cal)
	if err != nil {
		return nil, err
	}
	c := &ReleaseCheck{Model: f, Metric: "accuracy"}
	var yRaw []float64
	if schema.Task == data.Regression {
		c.Metric = "mse"
		// The test labels as they are, not clipped to the public bounds.
		l, _ := schema.Label()
		if yRaw, err = numericColumn(test.Col(l.Name), l.Name); err != nil {
			return nil, fmt.Errorf("dpnb: CheckRelease: test: %w", err)
		}
	}
	score := func(m models.Model, theta []float64) (float64, error) {
		if yRaw != nil {
			return unitsMSE(f, theta, test, yRaw)
		}
		return c.score(m, theta, testData)
	}
	if c.Private, err = score(run.setup.Model, f.Model.Theta); err != nil {
		return nil, err
	}
	base := run.setup
	base.OnStep = nil // the progress callback is the release's
	for _, b := range []struct {
		method fdp.Method
		out    *float64
	}{{fdp.NonPrivate, &c.NonPrivate}, {fdp.PublicOnly, &c.PublicOnly}} {
		res, err := fdp.Train(ctx, b.method, base)
		if err != nil {
			return nil, fmt.Errorf("dpnb: CheckRelease: %s baseline: %w", b.method, err)
		}
		if *b.out, err = score(base.Model, res.Theta); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// score evaluates theta on d with the check's metric.
func (c *ReleaseCheck) score(m models.Model, theta []float64, d *design.Data) (float64, error) {
	ev, ok := m.(models.Evaluator)
	if !ok {
		return 0, errors.New("dpnb: CheckRelease: the model cannot be evaluated")
	}
	met := ev.Evaluate(theta, d)
	if c.Metric == "mse" {
		return met.MSE, nil
	}
	return met.Accuracy, nil
}

// unitsMSE is the mean squared error, in the label's units, of the model
// file f with parameters theta on df's rows against y: the predictions a
// user of the file gets (Predict), not the scaled values of training.
func unitsMSE(f *release.File, theta []float64, df dataframe.DataFrame, y []float64) (float64, error) {
	g := *f
	g.Model.Theta = theta
	p, err := g.Predict(df)
	if err != nil {
		return 0, fmt.Errorf("dpnb: CheckRelease: %w", err)
	}
	s := 0.0
	for i, v := range p.Value {
		d := v - y[i]
		s += d * d
	}
	return s / float64(len(y)), nil
}

// allRows is 0..n−1.
func allRows(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// Markdown puts the three numbers side by side with the certificate's
// statement.
func (c *ReleaseCheck) Markdown() string {
	if c == nil || c.Model == nil {
		return "_no release_\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| model | test %s |\n|---|---:|\n", c.Metric)
	for _, r := range []struct {
		name string
		v    float64
	}{{c.privateName(), c.Private}, {"non-private (same model, steps and batch)", c.NonPrivate},
		{"public columns only", c.PublicOnly}} {
		v := "—"
		if !math.IsNaN(r.v) {
			v = fmt.Sprintf("%.4f", r.v)
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r.name, v)
	}
	b.WriteString("\nThe baselines are computed on the private data without privacy: for your decision, not for publication.\n")
	return b.String()
}

// privateName names the release's row: notion, (ε, δ) and whether it is a
// private release.
func (c *ReleaseCheck) privateName() string {
	cert := c.Model.Certificate
	name := fmt.Sprintf("%s release, ε = %s, δ = %s", cert.Notion, mdtext.Upward(cert.Epsilon, 3), mdtext.Upward(cert.Delta, 3))
	if !cert.PrivateRelease {
		name += " (reproducible: not a private release)"
	}
	return name
}
