package figures

import (
	"context"
	"testing"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// TestDiffusionWork pins the Work of the diffusion figures, predicted from
// the cells' settings alone, against the examples their runs count
// (TrainDiffusion's steps and the sampling): on a tiny conditional setting
// whose FDP methods pre-train inside the engine run (setting A) and an
// unconditional one with a separate small-batch pre-training (setting B),
// with and without the EMA, for every series and for Algorithm 1's filtered
// series alone (its model trained by its own cells when nothing shared it).
func TestDiffusionWork(t *testing.T) {
	base, d := tinyDiffusion(t)
	base.Train = d.Train.N + d.Holdout.N // the spec's images: trainImages(s) must be d.Train.N
	b := base
	b.Name, b.Conditional, b.Batch, b.SmallBatch, b.EMA = "B", false, 50, 10, 0.9
	for _, c := range []struct {
		name   string
		s      DiffusionSetting
		series []string
	}{
		{"A all", base, nil},
		{"B all", b, nil},
		{"B filtered only", b, []string{Alg1Filtered}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := trainImages(c.s); got != d.Train.N {
				t.Fatalf("trainImages = %d, want the %d images trained on", got, d.Train.N)
			}
			var cells []experiments.Cell
			for _, cell := range diffusionCells("test-work", c.s, 1) {
				// Every x of a series reads the same model and samples: x = 0
				// (all classes) is enough, and tiny per-class sets are too small.
				if cell.X == 0 && (c.series == nil || cell.Method == c.series[0]) {
					cells = append(cells, cell)
				}
			}
			checkWork(t, diffusionWork, diffusionFigureRun, c.s, d, cells)
		})
	}
}

// TestSamplesWork pins the Work of fdp-samples (it had none: progress
// counted cells, ten of which wait for each model) against the examples
// its cells count, training and sampling every series of a tiny setting A
// for one image per class.
func TestSamplesWork(t *testing.T) {
	f, ok := experiments.Lookup("fdp-samples")
	if !ok {
		t.Fatal("fdp-samples not registered")
	}
	if f.Work == nil || f.ProgressUnit() != "examples" {
		t.Fatalf("fdp-samples counts %s, want examples", f.ProgressUnit())
	}
	s, d := tinyDiffusion(t)
	// As many samples as training images: the real series is then every
	// training image, of every class.
	s.Train, s.Samples = d.Train.N+d.Holdout.N, d.Train.N
	checkWork(t, f.Work, f.Run, s, d, samplesCellsOf(s))
}

// checkWork runs cells with run on the images d of setting s (the memo
// holds them) and checks that the units of work they count are those
// that work predicts from the cells alone.
func checkWork(t *testing.T, work func(experiments.Profile, []experiments.Cell) int,
	run func(context.Context, experiments.Cell, experiments.Env) ([]experiments.Measurement, error),
	s DiffusionSetting, d *DiffusionData, cells []experiments.Cell) {
	t.Helper()
	want := work(experiments.Quick, cells)
	if want <= 0 {
		t.Fatalf("predicted work %d", want)
	}
	memo := experiments.NewMemo(0)
	if _, err := memo.Do(dataKey(s), func() (any, error) { return d, nil }); err != nil {
		t.Fatal(err)
	}
	w := &experiments.Work{}
	ctx := experiments.WithWork(context.Background(), w)
	for _, cell := range cells {
		if _, err := run(ctx, cell, experiments.Env{Memo: memo}); err != nil {
			t.Fatalf("%s x=%g: %v", cell.Method, cell.X, err)
		}
	}
	if w.Done() != want {
		t.Errorf("counted %d examples, predicted %d", w.Done(), want)
	}
}

// TestDiffusionFiguresCountExamples checks that the FD figures and
// fdp-samples report progress in training examples (Figure.Work), not in
// cells, which arrive in bursts as models finish.
func TestDiffusionFiguresCountExamples(t *testing.T) {
	for _, id := range []string{"fdp-fig7", "fdp-fig8", "fdp-fig7-eps", "fdp-samples"} {
		f, ok := experiments.Lookup(id)
		if !ok {
			t.Fatalf("%s not registered", id)
		}
		if f.Work == nil || f.ProgressUnit() != "examples" {
			t.Errorf("%s counts %s", id, f.ProgressUnit())
			continue
		}
		for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
			cells, err := f.Cells(p)
			if err != nil {
				t.Fatal(err)
			}
			if w := f.Work(p, cells); w <= 0 {
				t.Errorf("%s %s: work %d", id, p, w)
			}
		}
	}
}

// TestAlg1ExamplesCost checks that Algorithm 1's private examples count
// alg1Cost (at least 2: measured 2.1-2.2 times a non-private example) and
// its public pre-training once: on tiny settings A (pre-training inside
// the engine run) and B (a separate run at the small batch), its run
// counts (alg1Cost−1)·Steps·Batch more than FDP (DP-SGD)'s, whose steps
// are the same.
func TestAlg1ExamplesCost(t *testing.T) {
	a, d := tinyDiffusion(t)
	b := a
	b.Name, b.Conditional, b.Batch, b.SmallBatch = "B", false, 50, 10
	if alg1Cost < 2 {
		t.Fatalf("alg1Cost = %d, want at least 2", alg1Cost)
	}
	for _, s := range []DiffusionSetting{a, b} {
		count := func(m fdp.Method) int {
			w := &experiments.Work{}
			if _, err := TrainDiffusion(experiments.WithWork(context.Background(), w), s, d, m, 8, 1e-3, 1); err != nil {
				t.Fatalf("setting %s %s: %v", s.Name, m, err)
			}
			return w.Done()
		}
		steps, _ := s.Steps(d.Train.N)
		if got, want := count(fdp.Alg1)-count(fdp.DPSGD), (alg1Cost-1)*steps*s.Batch; got != want {
			t.Errorf("setting %s: Algorithm 1 counts %d examples more than FDP (DP-SGD), want %d", s.Name, got, want)
		}
	}
}
