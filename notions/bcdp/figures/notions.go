package figures

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/notions/bcdp"

	"github.com/featuredp/featuredp/experiments"
)

// notionsQs is the q grid of bcdp-notions.
var notionsQs = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// rrLevels are the per-coordinate randomized-response levels of the
// Prop. 4 tightness curves.
var rrLevels = []float64{0.5, 1, 1}

// notionsKind is what a bcdp-notions cell computes.
type notionsKind int

const (
	// notionsExact is the exact δ_i* of randomized response (and the
	// Theorem 1 trade-off minimum at δ_i*).
	notionsExact notionsKind = iota
	// notionsProp41 is the Prop. 4 part 1 bound δ_i.
	notionsProp41
	// notionsProp42 is the Prop. 4 part 2 bound δ_i with ε = Σc = 2.5.
	notionsProp42
	// notionsExample is the exact δ_i* of one of the paper's examples.
	notionsExample
)

// notionsCell is the Config of a bcdp-notions cell.
type notionsCell struct {
	Kind notionsKind
	// Coord is the coordinate i (0-based).
	Coord int
	// Example is the example mechanism of a notionsExample cell: 1 =
	// Example 1 at a = b = c = 1/2, 2 = Example 2 with one copy, 3 =
	// Example 2 with two copies.
	Example int
}

// String describes the cell configuration for error messages.
func (c notionsCell) String() string {
	return fmt.Sprintf("kind=%d coordinate=%d example=%d", c.Kind, c.Coord, c.Example)
}

// notionsCurves are the q-curves of bcdp-notions: label and configuration.
var notionsCurves = []struct {
	label string
	cfg   notionsCell
}{
	{"exact δ1*", notionsCell{Kind: notionsExact, Coord: 0}},
	{"Prop 4.1 bound δ1", notionsCell{Kind: notionsProp41, Coord: 0}},
	{"Prop 4.2 bound δ1", notionsCell{Kind: notionsProp42, Coord: 0}},
	{"exact δ2*", notionsCell{Kind: notionsExact, Coord: 1}},
	{"Prop 4.1 bound δ2", notionsCell{Kind: notionsProp41, Coord: 1}},
}

// notionsExamples are the example series of bcdp-notions (x = coordinate).
var notionsExamples = []string{"Example 1 (a=b=c=1/2)", "Example 2 (one copy)", "Example 2 (two copies)"}

// notionsCells returns the cells of bcdp-notions: the q-curves, then the
// examples per coordinate 1–3 (seeds are those of experiments.Grid; the
// figure draws nothing).
func notionsCells(experiments.Profile) ([]experiments.Cell, error) {
	var cells []experiments.Cell
	for _, cv := range notionsCurves {
		for _, c := range experiments.Grid("bcdp-notions", 0, []string{cv.label}, notionsQs, 1) {
			c.Config = cv.cfg
			cells = append(cells, c)
		}
	}
	for k, ex := range notionsExamples {
		for _, c := range experiments.Grid("bcdp-notions", 0, []string{ex}, []float64{1, 2, 3}, 1) {
			c.Config = notionsCell{Kind: notionsExample, Coord: int(c.X) - 1, Example: k + 1}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:     "bcdp-notions",
		Paper:  "bcdp",
		Title:  "Exact BCDP vs the Prop. 4 bounds (randomized response)",
		XLabel: "correlation q",
		YLabel: "BCDP level δ_i",
		Metric: "delta",
		Plot:   experiments.LinesSD,
		Cells:  notionsCells,
		Run:    runNotions,
		Settings: func(experiments.Profile) string {
			return "Exact calculator on finite mechanisms: randomized response per coordinate with levels (0.5, 1, 1) " +
				"under prior (60), q ∈ {0, 0.05, …, 1}; Examples 1 and 2 (metric example_delta, x = coordinate); " +
				"metric tradeoff_min = min over rejection regions of min(e^δ α + β, α + e^δ β) at δ = δ* (Theorem 1: exactly 1)."
		},
		PaperValues: []experiments.PaperValue{
			{Quantity: "Example 1, δ1 (a=b=c=1/2)", Value: math.Log(2), Method: "Example 1 (a=b=c=1/2)", X: 1, Metric: "example_delta", Note: "paper Sec. 3, Example 1: log 2"},
			{Quantity: "Example 1, δ2 (a=b=c=1/2)", Value: math.Log(2), Method: "Example 1 (a=b=c=1/2)", X: 2, Metric: "example_delta", Note: "paper Sec. 3, Example 1: log 2"},
			{Quantity: "Example 2, one copy, δ1", Value: 0, Method: "Example 2 (one copy)", X: 1, Metric: "example_delta", Note: "paper Example 2: 0-BCDP for coordinate 1 (two copies: +∞, not shown)"},
		},
		Notes: "Not a figure of the paper: the exact BCDP of a small finite mechanism against the Prop. 4 bounds (docs/bcdp.md). " +
			"Exact ≤ Prop 4.1 ≤ Prop 4.2 (with ε = Σc), with equality at q = 0 and q = 1. Example 2 with two copies has δ1* = +∞ " +
			"(BCDP does not compose).",
	})
}

// runNotions computes one bcdp-notions cell from its notionsCell.
func runNotions(_ context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
	cfg, ok := c.Config.(notionsCell)
	if !ok {
		return nil, fmt.Errorf("bcdp-notions: cell config is %T, want notionsCell", c.Config)
	}
	if cfg.Kind == notionsExample {
		return runNotionsExample(cfg)
	}
	q := c.X
	qs := []float64{q, q, q}
	i := cfg.Coord
	switch cfg.Kind {
	case notionsExact:
		m, err := bcdp.RandomizedResponse(rrLevels, q)
		if err != nil {
			return nil, err
		}
		ds, err := bcdp.Exact(m)
		if err != nil {
			return nil, err
		}
		tr, err := bcdp.TradeoffMin(m, i, ds[i])
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "delta", Value: ds[i]}, {Metric: "tradeoff_min", Value: tr}}, nil
	case notionsProp41:
		b, err := bcdp.BCDPFromCDP(rrLevels, qs)
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "delta", Value: b[i]}}, nil
	case notionsProp42:
		b, err := bcdp.BCDPFromCDPAndLDP(rrLevels, qs, 2.5)
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "delta", Value: b[i]}}, nil
	}
	return nil, fmt.Errorf("bcdp-notions: unknown cell %v", cfg)
}

// runNotionsExample returns the exact δ_i* of one example mechanism
// (nothing for coordinate 3 of the two-coordinate Example 1).
func runNotionsExample(cfg notionsCell) ([]experiments.Measurement, error) {
	var m bcdp.Finite
	var err error
	switch cfg.Example {
	case 1:
		if cfg.Coord >= 2 {
			return nil, nil
		}
		m, err = Example1(0.5, 0.5, 0.5)
	case 2, 3:
		m, err = Example2(cfg.Example - 1)
	default:
		return nil, fmt.Errorf("bcdp-notions: unknown example %d", cfg.Example)
	}
	if err != nil {
		return nil, err
	}
	ds, err := bcdp.Exact(m)
	if err != nil {
		return nil, err
	}
	return []experiments.Measurement{{Metric: "example_delta", Value: ds[cfg.Coord]}}, nil
}
