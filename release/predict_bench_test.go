package release

import (
	"fmt"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
)

// predictBenchCSV is a CSV of n rows of the test model's features and a
// note column.
func predictBenchCSV(n int) string {
	var b strings.Builder
	b.WriteString("sex,age,note\n")
	for i := range n {
		fmt.Fprintf(&b, "%s,%d,free text %d\n", []string{"f", "m"}[i%2], i%100, i)
	}
	return b.String()
}

// BenchmarkPredictCSV streams 200,000 CSV rows through the model
// (PredictCSV, 4096 rows a chunk); BenchmarkPredictDataFrame reads the same
// text into a DataFrame (data.ReadCSV) and calls Predict, the path of
// featuredp predict before it streamed.
func BenchmarkPredictCSV(b *testing.B) {
	f, text := modelFile(b), predictBenchCSV(200_000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		rows := 0
		err := f.PredictCSV(strings.NewReader(text), data.CSVOptions{}, func(p *Predictions) error {
			rows += len(p.Class)
			return nil
		})
		if err != nil || rows != 200_000 {
			b.Fatal(err, rows)
		}
	}
}

func BenchmarkPredictDataFrame(b *testing.B) {
	f, text := modelFile(b), predictBenchCSV(200_000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		df, err := data.ReadCSV(strings.NewReader(text), data.CSVOptions{MaxCells: -1, MaxBytes: -1})
		if err != nil {
			b.Fatal(err)
		}
		p, err := f.Predict(df)
		if err != nil || len(p.Class) != 200_000 {
			b.Fatal(err)
		}
	}
}
