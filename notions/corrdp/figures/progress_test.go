package figures

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gota/gota/dataframe"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
)

// progressFrame prepares a small random frame (two public continuous
// features, a sensitive categorical one) for a lock-step comparison: a
// binary label for "logistic", a numeric one for "mlp-reg" (full batch).
func progressFrame(t testing.TB, kind string) *RealPrep {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	rec := [][]string{{"a", "b", "s", "y"}}
	for range 300 {
		a, b, s := rng.Float64(), rng.Float64(), rng.IntN(3)
		y := strconv.FormatFloat(a+0.5*b+float64(s)+0.3*rng.NormFloat64(), 'g', -1, 64)
		if kind == "logistic" {
			y = strconv.Itoa(min(1, s))
		}
		rec = append(rec, []string{strconv.FormatFloat(a, 'g', -1, 64), strconv.FormatFloat(b, 'g', -1, 64), "l" + strconv.Itoa(s), y})
	}
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "a", Role: data.Public, Kind: data.Continuous},
		{Name: "b", Role: data.Public, Kind: data.Continuous},
		{Name: "s", Role: data.Sensitive, Kind: data.Categorical},
		{Name: "y", Role: data.Label, Kind: data.Categorical},
	}}
	spec := RealSpec{Name: "progress", Kind: kind, Alpha: 0.05, Steps: 30, Delta: 1e-5, Metric: "accuracy"}
	if kind == "mlp-reg" {
		schema.Task, schema.Columns[3].Kind = data.Regression, data.Continuous
		spec.Metric, spec.Hidden, spec.Clip = "mse_gap", 3, 10
	}
	df := dataframe.LoadRecords(rec)
	opts := data.EncodeOptions{Scale: data.MinMax, BoundsFromData: true, LevelsFromData: true}
	prep, err := NewFramePrep(df, schema, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if prep.blockGrad(prep.Data) == nil {
		t.Fatalf("%s: the frame does not train in lock-step", kind)
	}
	return prep
}

// countWork runs cells one after the other with a Work in the context and
// returns the units of work they counted.
func countWork(t *testing.T, fig experiments.Figure, cells []experiments.Cell, dataDir string) int {
	t.Helper()
	w := &experiments.Work{}
	ctx := experiments.WithWork(context.Background(), w)
	env := experiments.Env{DataDir: dataDir, Profile: experiments.Quick, Memo: experiments.NewMemo(0)}
	for _, c := range cells {
		if _, err := fig.Run(ctx, c, env); err != nil {
			t.Fatal(err)
		}
	}
	return w.Done()
}

// A lock-step comparison declares as its Work exactly the training steps
// its cells count, for all its cells and for a subset (a shard's): the
// calibration (when C is chosen), the replicate blocks the cells read and
// a GLM's non-private run.
func TestLockstepWorkMatchesSteps(t *testing.T) {
	for _, tc := range []struct {
		kind string
		c    float64
	}{{"logistic", 0}, {"logistic", 0.1}, {"mlp-reg", 0}} {
		prep := progressFrame(t, tc.kind)
		fig := FrameFigure("corrdp-progress-"+tc.kind, prep, tc.c, []float64{0.5, 2}, 3, []TVMode{TVPaper, TVEstimated})
		if fig.Work == nil || fig.ProgressUnit() != "steps" {
			t.Fatalf("%s: no Work: progress counts %s", tc.kind, fig.ProgressUnit())
		}
		cells, err := fig.Cells(experiments.Quick)
		if err != nil {
			t.Fatal(err)
		}
		subsets := map[string][]experiments.Cell{"all": cells}
		for _, c := range cells {
			cfg, _ := configOf(c)
			if c.Rep == 1 {
				subsets["rep 1"] = append(subsets["rep 1"], c)
			}
			if cfg.Variant == VariantNonPrivate {
				subsets["non-private"] = append(subsets["non-private"], c)
			}
		}
		for name, sub := range subsets {
			want := fig.Work(experiments.Quick, sub)
			if got := countWork(t, fig, sub, ""); got != want || want == 0 {
				t.Errorf("%s, C = %v, %s cells: counted %d steps, Work declares %d", tc.kind, tc.c, name, got, want)
			}
		}
	}
}

// The registered lock-step figures declare Work and the others do not,
// as RealPrep.blockGrad decides on the prepared data; Fig. 1(b) (with the
// Partial run) counts the steps it declares.
func TestRealSpecsLockstep(t *testing.T) {
	want := map[string]bool{"adult": true, "credit": true, "medical-nn": true, "sepsis": false, "medical-linear": false}
	for name, spec := range RealSpecs {
		if spec.lockstep() != want[name] {
			t.Errorf("%s: lockstep() = %v, want %v", name, spec.lockstep(), want[name])
		}
	}
	for _, id := range []string{"corrdp-fig1b", "corrdp-fig1d", "corrdp-fig1f"} {
		if f, ok := experiments.Lookup(id); !ok || f.Work == nil {
			t.Errorf("%s: no Work (progress counts cells, all at the end)", id)
		}
	}
	dir := testDataDir(t, "insurance.csv", "UCI_Credit_Card.csv")
	for _, name := range []string{"medical-nn", "credit"} {
		p, err := NewRealPrep(RealSpecs[name], dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.blockGrad(p.Data) != nil; got != RealSpecs[name].lockstep() {
			t.Errorf("%s: blockGrad on the data %v, lockstep() %v", name, got, RealSpecs[name].lockstep())
		}
	}
	if testing.Short() {
		return
	}
	dir = testDataDir(t, "adult.data", "adult.test")
	fig, _ := experiments.Lookup("corrdp-fig1b")
	cells, err := fig.Cells(experiments.Quick)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := countWork(t, fig, cells, dir), fig.Work(experiments.Quick, cells); got != want {
		t.Errorf("corrdp-fig1b: counted %d steps, Work declares %d", got, want)
	}
}

// Running a lock-step comparison, progress must arrive while the shared
// blocks train, before any cell completes (the cells all read the same
// blocks, so cells done would arrive together at the end), and end with
// every declared step done. Counting cells (the old progress), nothing
// arrives before the first cell completes: it waits for a report that
// never comes and fails.
func TestLockstepProgressBeforeCells(t *testing.T) {
	prep := progressFrame(t, "logistic")
	prep.Spec.Steps, prep.Spec.StepsOverride = 400, 400
	fig := FrameFigure("corrdp-progress-live", prep, 0, []float64{0.5, 2}, 2, []TVMode{TVPaper})
	var (
		mu    sync.Mutex
		calls [][2]int
		seen  = make(chan struct{})
		once  sync.Once
		busy  atomic.Int32
	)
	progress := func(done, total int) {
		if busy.Add(1) > 1 {
			t.Error("overlapping progress calls")
		}
		mu.Lock()
		calls = append(calls, [2]int{done, total})
		mu.Unlock()
		if done > 0 && done < total {
			once.Do(func() { close(seen) })
		}
		busy.Add(-1)
	}
	run := fig.Run
	fig.Run = func(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
		ms, err := run(ctx, c, env)
		select {
		case <-seen:
		case <-time.After(20 * time.Second):
			return nil, errors.New("no progress reported before the first cell completed")
		}
		return ms, err
	}
	if _, err := fig.Execute(context.Background(), experiments.Quick, experiments.Env{Workers: 2}, progress); err != nil {
		t.Fatal(err)
	}
	cells, _ := fig.Cells(experiments.Quick)
	total := fig.Work(experiments.Quick, cells)
	if first, last := calls[0], calls[len(calls)-1]; first != [2]int{0, total} || last != [2]int{total, total} {
		t.Errorf("calls %v: want (0, %d) first and (%[2]d, %[2]d) last", calls, total)
	}
}

// BenchmarkLockstepCounted is one lock-step chunk of 16 Adult runs (the
// quick profile's 10,000 rows, 50 steps) without and with a Work in the
// context: the cost of counting progress (an atomic add per run and step).
func BenchmarkLockstepCounted(b *testing.B) {
	dir := os.Getenv(data.EnvDataDir)
	if dir == "" {
		b.Skip("FEATUREDP_DATA not set")
	}
	spec := RealSpecs["adult"]
	spec.Rows = spec.quickRows()
	p, err := NewRealPrep(spec, dir)
	if err != nil {
		b.Fatal(err)
	}
	runs := make([]trainRun, lockstepChunk)
	for k := range runs {
		runs[k] = trainRun{variant: VariantStandard, eps: 1, c: 0.01, steps: 50, seed: uint64(k)}
	}
	for _, counted := range []bool{false, true} {
		b.Run(map[bool]string{false: "uncounted", true: "counted"}[counted], func(b *testing.B) {
			ctx := context.Background()
			if counted {
				ctx = experiments.WithWork(ctx, &experiments.Work{})
			}
			for b.Loop() {
				if _, err := p.trainMany(ctx, runs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
