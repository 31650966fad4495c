package figures

// The paper-vs-run reading of the diffusion figures (notebook 23): each
// series' Fréchet distances with its run's ε, z and learning rate, the
// measured orderings and the paper's ordering claims checked on this run.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// DiffusionReport reads the results of a diffusion figure (fdp-fig7,
// fdp-fig8, fdp-fig7-eps): Results are its tidy rows and Summary their
// summaries over seeds (experiments.Summarize; a dpnb.Result carries both).
type DiffusionReport struct {
	Results *experiments.Results
	Summary []experiments.Summary
}

// Mean returns the mean and SD over seeds of a series' metric at x (NaN,
// NaN when the series has no such value).
func (r DiffusionReport) Mean(series string, x float64, metric string) (mean, sd float64) {
	s, ok := experiments.FindSummary(r.Summary, series, x, metric)
	if !ok {
		return math.NaN(), math.NaN()
	}
	return s.Mean, s.SD
}

// Ordering lists the trained series (DiffusionMethods) by their mean metric
// at x, lowest first, joined by " < " (ties keep the methods' order).
func (r DiffusionReport) Ordering(x float64, metric string) string {
	ms := DiffusionMethods()
	slices.SortStableFunc(ms, func(a, b string) int {
		fa, _ := r.Mean(a, x, metric)
		fb, _ := r.Mean(b, x, metric)
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	})
	return strings.Join(ms, " < ")
}

// runColumns are the columns of a series' trained run (empty for the
// reference sets): ε, z, the noise ratio z√P/m, the learning rate, and the
// filter's pass rate for the filtered series.
type runColumns struct{ eps, z, ratio, lr, kept string }

// runColumns reads the run's columns from the series' first fd_classifier
// row at x.
func (r DiffusionReport) runColumns(series string, x float64) runColumns {
	var c runColumns
	if r.Results == nil {
		return c
	}
	for _, row := range r.Results.Rows {
		if row.Method != series || row.X != x || row.Metric != "fd_classifier" {
			continue
		}
		if v, ok := row.Number("epsilon"); ok {
			c.eps = fmt.Sprintf("%.4g", v)
		}
		if v, ok := row.Number("z"); ok && v > 0 {
			c.z = fmt.Sprintf("%.3g", v)
		}
		if v, ok := row.Number("noise_ratio"); ok {
			c.ratio = fmt.Sprintf("%.2f", v)
		}
		if v, ok := row.Number("lr"); ok {
			c.lr = fmt.Sprintf("%g", v)
		}
		if v, ok := row.Number("kept"); ok && series == Alg1Filtered {
			c.kept = fmt.Sprintf("%.2f", v)
		}
		break
	}
	return c
}

// Table is the markdown table of every series at x (the methods, then the
// reference sets): classifier-FD and pixel-FD (mean ± SD over seeds), the
// sample accuracy ("–" when unconditional), and the run's ε (the
// accountant's), z, noise ratio, learning rate and filter pass rate.
func (r DiffusionReport) Table(x float64) string {
	var b strings.Builder
	b.WriteString("| series | classifier-FD | pixel-FD | sample accuracy | ε (accountant) | z | noise/signal z√P/m | lr | filter pass rate |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range append(DiffusionMethods(), RefNoise, RefBlurred, RefReal) {
		fc, sc := r.Mean(s, x, "fd_classifier")
		fp, sp := r.Mean(s, x, "fd_pixel")
		acc, _ := r.Mean(s, x, "sample_accuracy")
		accs := "–"
		if !math.IsNaN(acc) {
			accs = fmt.Sprintf("%.3f", acc)
		}
		c := r.runColumns(s, x)
		fmt.Fprintf(&b, "| %s | %.2f ± %.2f | %.1f ± %.1f | %s | %s | %s | %s | %s | %s |\n", s, fc, sc, fp, sp, accs, c.eps, c.z, c.ratio, c.lr, c.kept)
	}
	return b.String()
}

// Claims is the markdown table of the paper's ordering claims checked on
// the classifier-FD at x (mean ± SD over seeds): the non-private model
// lowest, both FDP variants below Public, DP largest and, withAlg1,
// Algorithm 1 at most FDP (DP-SGD); each row says whether it holds in this
// run.
func (r DiffusionReport) Claims(x float64, withAlg1 bool) string {
	fd := func(m fdp.Method) (float64, float64) { return r.Mean(string(m), x, "fd_classifier") }
	np, _ := fd(fdp.NonPrivate)
	pub, pubSD := fd(fdp.PublicOnly)
	dp, dpSD := fd(fdp.DP)
	fs, fsSD := fd(fdp.DPSGD)
	fa, faSD := fd(fdp.Alg1)
	mark := map[bool]string{true: "holds", false: "does NOT hold"}
	others := math.Min(math.Min(pub, dp), math.Min(fs, fa))
	var b strings.Builder
	b.WriteString("| paper's claim | this run (classifier-FD, mean ± SD) | |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| non-private lowest | NonPrivate %.2f; others ≥ %.2f | %s |\n", np, others, mark[np < others])
	fmt.Fprintf(&b, "| FDP variants below Public | FDP-DPSGD %.2f ± %.2f, FDP-Alg1 %.2f ± %.2f vs Public %.2f ± %.2f | %s |\n",
		fs, fsSD, fa, faSD, pub, pubSD, mark[fs < pub && fa < pub])
	fmt.Fprintf(&b, "| DP largest | DP %.2f ± %.2f | %s |\n", dp, dpSD, mark[dp > math.Max(math.Max(pub, np), math.Max(fs, fa))])
	if withAlg1 {
		fmt.Fprintf(&b, "| Alg. 1 ≤ FDP (DP-SGD) | %.2f ± %.2f vs %.2f ± %.2f | %s |\n", fa, faSD, fs, fsSD, mark[fa <= fs])
	}
	return b.String()
}

// PaperRanks is the markdown table of the paper's values (e.g. its FIDs)
// beside this run's mean classifier-FD at x for the methods in paper, each
// with its rank within its column (1 = lowest), in the order of
// DiffusionMethods; label names the paper's column.
func (r DiffusionReport) PaperRanks(x float64, label string, paper map[string]float64) string {
	var ms []string
	for _, m := range DiffusionMethods() {
		if _, ok := paper[m]; ok {
			ms = append(ms, m)
		}
	}
	ours := map[string]float64{}
	for _, m := range ms {
		ours[m], _ = r.Mean(m, x, "fd_classifier")
	}
	rank := func(v map[string]float64, m string) int {
		k := 1
		for _, o := range ms {
			if v[o] < v[m] {
				k++
			}
		}
		return k
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| method | %s | paper rank | our classifier-FD | our rank |\n|---|---:|---:|---:|---:|\n", label)
	for _, m := range ms {
		fmt.Fprintf(&b, "| %s | %.1f | %d | %.2f | %d |\n", m, paper[m], rank(paper, m), ours[m], rank(ours, m))
	}
	return b.String()
}
