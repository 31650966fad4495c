package bcdp

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/experiments"
)

// notionsQs is the q grid of bcdp-notions.
var notionsQs = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// rrLevels are the per-coordinate randomized-response levels of the
// Prop. 4 tightness curves (spec check 17).
var rrLevels = []float64{0.5, 1, 1}

func registerNotions() {
	methods := []string{"exact δ1*", "Prop 4.1 bound δ1", "Prop 4.2 bound δ1", "exact δ2*", "Prop 4.1 bound δ2"}
	experiments.MustRegister(experiments.Figure{
		ID:     "bcdp-notions",
		Paper:  "bcdp",
		Title:  "Exact BCDP vs the Prop. 4 bounds (randomized response)",
		XLabel: "correlation q",
		YLabel: "BCDP level δ_i",
		Metric: "delta",
		Plot:   experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			cells := experiments.Grid("bcdp-notions", 0, methods, notionsQs, 1)
			for _, ex := range []string{"Example 1 (a=b=c=1/2)", "Example 2 (one copy)", "Example 2 (two copies)"} {
				cells = append(cells, experiments.Grid("bcdp-notions", 0, []string{ex}, []float64{1, 2, 3}, 1)...)
			}
			return cells, nil
		},
		Run: runNotions,
		Settings: func(experiments.Profile) string {
			return "Exact calculator (spec §1.4) on finite mechanisms: randomized response per coordinate with levels (0.5, 1, 1) " +
				"under prior (60), q ∈ {0, 0.05, …, 1}; Examples 1 and 2 (metric example_delta, x = coordinate); " +
				"metric tradeoff_min = min over rejection regions of min(e^δ α + β, α + e^δ β) at δ = δ* (Theorem 1: exactly 1)."
		},
		PaperValues: []experiments.PaperValue{
			{Quantity: "Example 1, δ1 (a=b=c=1/2)", Value: math.Log(2), Method: "Example 1 (a=b=c=1/2)", X: 1, Metric: "example_delta", Note: "paper §3, Example 1: log 2"},
			{Quantity: "Example 1, δ2 (a=b=c=1/2)", Value: math.Log(2), Method: "Example 1 (a=b=c=1/2)", X: 2, Metric: "example_delta", Note: "paper §3, Example 1: log 2"},
			{Quantity: "Example 2, one copy, δ1", Value: 0, Method: "Example 2 (one copy)", X: 1, Metric: "example_delta", Note: "paper Example 2: 0-BCDP for coordinate 1 (two copies: +∞, not shown)"},
		},
		Notes: "Not a figure of the paper: the exact BCDP of a small finite mechanism against the Prop. 4 bounds (spec §4.3 f). " +
			"Exact ≤ Prop 4.1 ≤ Prop 4.2 (with ε = Σc), with equality at q = 0 and q = 1. Example 2 with two copies has δ1* = +∞ " +
			"(BCDP does not compose).",
	})
}

func runNotions(_ context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
	switch c.Method {
	case "Example 1 (a=b=c=1/2)", "Example 2 (one copy)", "Example 2 (two copies)":
		var m Finite
		var err error
		switch c.Method {
		case "Example 1 (a=b=c=1/2)":
			if c.X > 2 {
				return nil, nil
			}
			m, err = Example1(0.5, 0.5, 0.5)
		case "Example 2 (one copy)":
			m, err = Example2(1)
		default:
			m, err = Example2(2)
		}
		if err != nil {
			return nil, err
		}
		ds, err := Exact(m)
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "example_delta", Value: ds[int(c.X)-1]}}, nil
	}
	q := c.X
	m, err := RandomizedResponse(rrLevels, q)
	if err != nil {
		return nil, err
	}
	qs := []float64{q, q, q}
	switch c.Method {
	case "exact δ1*", "exact δ2*":
		ds, err := Exact(m)
		if err != nil {
			return nil, err
		}
		i := 0
		if c.Method == "exact δ2*" {
			i = 1
		}
		tr, err := TradeoffMin(m, i, ds[i])
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "delta", Value: ds[i]}, {Metric: "tradeoff_min", Value: tr}}, nil
	case "Prop 4.1 bound δ1", "Prop 4.1 bound δ2":
		b, err := Prop4Part1(rrLevels, qs)
		if err != nil {
			return nil, err
		}
		i := 0
		if c.Method == "Prop 4.1 bound δ2" {
			i = 1
		}
		return []experiments.Measurement{{Metric: "delta", Value: b[i]}}, nil
	case "Prop 4.2 bound δ1":
		b, err := Prop4Part2(rrLevels, qs, 2.5)
		if err != nil {
			return nil, err
		}
		return []experiments.Measurement{{Metric: "delta", Value: b[0]}}, nil
	}
	return nil, fmt.Errorf("bcdp-notions: unknown method %q", c.Method)
}
