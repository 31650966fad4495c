package figures

import (
	"fmt"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// BalanceRow describes one variant of the Sepsis balancing (see
// SepsisBalancing).
type BalanceRow struct {
	Variant string
	// Rows is the number of rows after balancing; Positive the share of
	// class 1 (alive).
	Rows     int
	Positive float64
	// Distinct is the number of distinct input vectors (age, sex, episode)
	// and BestAccuracy the training accuracy of the best possible
	// classifier: the majority class of every distinct input.
	Distinct     int
	BestAccuracy float64
}

// SepsisBalancing balances the Sepsis primary cohort in dir with
// SMOTE-NC alone and with SMOTE-NC + ENN (the seeds of NewRealPrep)
// and reports, for the raw data and each variant, the size, class share and
// the best achievable accuracy on the full balanced set. It explains the
// gap between our non-private Sepsis accuracy and the paper's 69%.
func SepsisBalancing(dir string) ([]BalanceRow, error) {
	ds, err := loadDataset("sepsis", dir)
	if err != nil {
		return nil, err
	}
	st := mechanisms.NewStreams(seedBase).Derive("corrdp-prep-sepsis")
	variants := []struct {
		name string
		skip bool
	}{{"raw (no balancing)", false}, {"SMOTE-NC", true}, {"SMOTE-NC + ENN (ours, Fig. 1c)", false}}
	var out []BalanceRow
	for k, v := range variants {
		frame := ds.Frame
		if k > 0 {
			if frame, err = corrdp.SMOTEENN(ds.Frame, ds.Schema, corrdp.SMOTEOptions{SkipENN: v.skip}, st.Rand("smote")); err != nil {
				return nil, err
			}
		}
		enc, err := data.Encode(frame, ds.Schema, data.EncodeOptions{})
		if err != nil {
			return nil, err
		}
		counts := map[string]*[2]int{}
		var pos int
		for i := range enc.N {
			key := fmt.Sprint(enc.X[i*enc.D : (i+1)*enc.D])
			c, ok := counts[key]
			if !ok {
				c = &[2]int{}
				counts[key] = c
			}
			y := int(enc.Y[i])
			c[y]++
			pos += y
		}
		best := 0
		for _, c := range counts {
			best += max(c[0], c[1])
		}
		out = append(out, BalanceRow{Variant: v.name, Rows: enc.N, Positive: float64(pos) / float64(enc.N),
			Distinct: len(counts), BestAccuracy: float64(best) / float64(enc.N)})
	}
	return out, nil
}
