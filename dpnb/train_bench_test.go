package dpnb

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
)

// bigCSV writes n rows of 48 continuous features in [0, 1] (24 sensitive,
// 24 public), a public categorical "group" with 4 levels and a binary
// label "y" driven by a few features — 50 columns — and returns the
// schema and the public encoding.
func bigCSV(b *testing.B, path string, n int) (data.Schema, data.EncodeOptions) {
	b.Helper()
	fh, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	schema := data.Schema{Task: data.Classification}
	opts := data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{}}
	var head []string
	for j := range 48 {
		name := fmt.Sprintf("x%02d", j)
		role := data.Public
		if j < 24 {
			role = data.Sensitive
		}
		schema.Columns = append(schema.Columns, data.Column{Name: name, Role: role, Kind: data.Continuous})
		opts.Bounds[name] = data.Range{Lo: 0, Hi: 1}
		head = append(head, name)
	}
	schema.Columns = append(schema.Columns,
		data.Column{Name: "group", Role: data.Public, Kind: data.Categorical, Levels: []string{"a", "b", "c", "d"}},
		data.Column{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}})
	fmt.Fprintln(w, strings.Join(append(head, "group", "y"), ","))
	r := rand.New(rand.NewPCG(1, 1))
	row := make([]byte, 0, 512)
	for range n {
		row = row[:0]
		z := -1.0
		for j := range 48 {
			v := math.Round(r.Float64()*1e4) / 1e4
			if j < 3 || j == 30 {
				z += v
			}
			row = strconv.AppendFloat(row, v, 'g', -1, 64)
			row = append(row, ',')
		}
		row = append(row, "abcd"[r.IntN(4)], ',')
		label := byte('0')
		if z+0.3*r.NormFloat64() > 0.6 {
			label = '1'
		}
		row = append(row, label, '\n')
		w.Write(row)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		b.Fatal(err)
	}
	return schema, opts
}

// peakRSS is the process's peak resident set (VmHWM) in MiB, NaN where
// /proc is not available.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return math.NaN()
}

// BenchmarkTrainCSVMillion trains a feature-DP release at ε = 1, δ = 1e-8 on a
// 1,000,000-row × 50-column CSV through TrainCSV (streaming into the
// design matrix, no DataFrame): wall time per release, the file's size and
// the process's peak resident memory.
func BenchmarkTrainCSVMillion(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: the 1,000,000-row benchmark is not run")
	}
	path := filepath.Join(b.TempDir(), "big.csv")
	schema, enc := bigCSV(b, path, 1_000_000)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	o := TrainOptions{Epsilon: 1, Delta: 1e-8, Encode: enc} // δ ≪ 1/n: the default 1e-5 is 10/n here, refused
	csvOpts := data.CSVOptions{MaxBytes: -1}
	b.ResetTimer()
	for b.Loop() {
		fh, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f, err := TrainCSV(context.Background(), fh, schema, o, csvOpts)
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		if f.Certificate.Epsilon > 1 {
			b.Fatalf("ε %v above the target", f.Certificate.Epsilon)
		}
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}
