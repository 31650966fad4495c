package figures

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// trainedModel names the model a diffusion cell scores (the memo key of
// its run), or "" for a reference series, which trains none.
func trainedModel(c experiments.Cell) string {
	cc := c.Config.(diffusionCell)
	series := seriesOf(cc.Series)
	if !slices.Contains(DiffusionMethods(), series) {
		return ""
	}
	m := fdp.Method(series)
	if series == Alg1Filtered {
		m = fdp.Alg1
	}
	return runKey(cc.Setting, m, c.Seed)
}

// unitsOf returns the shard unit key of every cell of f.
func unitsOf(f experiments.Figure, cells []experiments.Cell) []string {
	keys := make([]string, len(cells))
	for i, c := range cells {
		keys[i] = f.ShardUnit(c)
	}
	return keys
}

// The diffusion figures shard by trained model: the cells of one model
// are one unit, and a unit holds at most one model. Algorithm 1's filtered
// series carries Algorithm 1's seed (one run, one unit), and fdp-samples
// scores fdp-fig7's first seed of every series.
func TestDiffusionShardUnits(t *testing.T) {
	for _, id := range []string{"fdp-fig7", "fdp-fig8", "fdp-fig7-eps", "fdp-samples"} {
		f, ok := experiments.Lookup(id)
		if !ok || f.ShardUnit == nil {
			t.Fatalf("%s: registered %v, with a ShardUnit %v", id, ok, ok && f.ShardUnit != nil)
		}
		for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
			cells, err := f.Cells(p)
			if err != nil {
				t.Fatal(err)
			}
			keys := unitsOf(f, cells)
			unitOfModel, modelOfUnit := map[string]string{}, map[string]string{}
			for i, c := range cells {
				m, u := trainedModel(c), keys[i]
				if m == "" {
					continue
				}
				if v, ok := unitOfModel[m]; ok && v != u {
					t.Errorf("%s %s: cell %d (%s, rep %d) of a model in unit %s is in unit %s", id, p, i, c.Method, c.Rep, v, u)
				}
				if v, ok := modelOfUnit[u]; ok && v != m {
					t.Errorf("%s %s: unit %s holds two models:\n%s\n%s", id, p, u, v, m)
				}
				unitOfModel[m], modelOfUnit[u] = u, m
			}
			type seriesRep struct {
				series string
				rep    int
			}
			seeds := map[seriesRep]uint64{}
			for _, c := range cells {
				seeds[seriesRep{c.Method, c.Rep}] = c.Seed
			}
			for k, b := range seeds {
				if a, ok := seeds[seriesRep{string(fdp.Alg1), k.rep}]; k.series == Alg1Filtered && (!ok || a != b) {
					t.Errorf("%s %s rep %d: %s has seed %d, %s %d: two trained runs", id, p, k.rep, Alg1Filtered, b, fdp.Alg1, a)
				}
			}
			if id != "fdp-samples" {
				continue
			}
			fig7, _ := experiments.Lookup("fdp-fig7")
			fcells, err := fig7.Cells(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cells {
				i := slices.IndexFunc(fcells, func(d experiments.Cell) bool { return d.Method == seriesOf(c.Method) && d.Rep == 0 })
				if i < 0 || fcells[i].Seed != c.Seed || trainedModel(fcells[i]) != trainedModel(c) {
					t.Errorf("fdp-samples %s %s: seed %d is not fdp-fig7's first seed of %s", p, c.Method, c.Seed, seriesOf(c.Method))
				}
			}
		}
	}
}

// shardSetting is setting A at a size that trains in seconds, for
// TestDiffusionShardsMerge.
func shardSetting(p experiments.Profile) DiffusionSetting {
	s := DiffusionSettingA(p)
	s.Train, s.Val, s.Samples, s.Hidden, s.Epochs, s.Pretrain, s.Batch = 300, 100, 100, 32, 2, 1, 64
	s.LRs, s.ClassifierEpochs = []float64{1e-3}, 1
	return s
}

// A diffusion figure (fdp-fig7's cells at a small setting, on the real
// Fashion-MNIST) run as 3 shards, each with its own memo as on its own
// machine, trains every model in exactly one shard, and the merged CSV is
// byte-identical to the one-machine run's.
func TestDiffusionShardsMerge(t *testing.T) {
	f := diffusionFigure("fdp-fig7", "shard test", "x", classTick, shardSetting, "")
	dir := os.Getenv("FEATUREDP_DATA")
	if missing := f.MissingDatasets(dir); len(missing) > 0 {
		t.Skipf("Fashion-MNIST needed: %s", experiments.MissingWhere(dir, missing))
	}
	if testing.Short() {
		t.Skip("trains 16 small diffusion models twice: skipped with -short")
	}
	ctx := context.Background()
	start := time.Now()
	whole, err := f.Execute(ctx, experiments.Quick, experiments.Env{DataDir: dir, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unsharded: %v", time.Since(start).Round(time.Millisecond))
	cells, err := f.Cells(experiments.Quick)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*experiments.Part
	shardOf := map[string]string{} // trained model → shard
	for k := 1; k <= 3; k++ {
		start := time.Now()
		p, err := f.ExecuteShard(ctx, experiments.Quick, experiments.Env{DataDir: dir, Workers: 2}, experiments.Shard{K: k, N: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		models := 0
		for _, i := range p.Cells {
			m := trainedModel(cells[i])
			if m == "" {
				continue
			}
			if s, ok := shardOf[m]; ok && s != p.Shard {
				t.Errorf("cell %d (%s, rep %d): its model is trained in shards %s and %s", i, cells[i].Method, cells[i].Rep, s, p.Shard)
			}
			if _, ok := shardOf[m]; !ok {
				models++
			}
			shardOf[m] = p.Shard
		}
		t.Logf("shard %s: %d cells, %d trained models, %v", p.Shard, len(p.Cells), models, time.Since(start).Round(time.Millisecond))
		var man, csv bytes.Buffer
		if err := p.WriteManifest(&man); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		back, err := experiments.ReadPart(&man, &csv)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, back)
	}
	merged, err := f.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	if err := merged.WriteCSV(&got); err != nil {
		t.Fatal(err)
	}
	if err := whole.WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("the merged CSV (%d bytes) differs from the unsharded one (%d bytes)", got.Len(), want.Len())
	}
	if len(shardOf) != 10 {
		t.Errorf("%d trained models, want 10 (5 methods × 2 seeds; Algorithm 1's filtered series reuses its run)", len(shardOf))
	}
}
