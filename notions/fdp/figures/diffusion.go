package figures

// The diffusion figures fdp-fig7, fdp-fig8, fdp-samples and fdp-fig7-eps
// (E5): their settings, series, cells and scores, the stand-in for the
// paper's AFHQ (Figs 6, 7) and LSUN Bedroom (Figs 8, 9)
// experiments on 14×14 Fashion-MNIST.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// Series of the diffusion figures besides the methods: Algorithm 1's
// samples through the sharpness filter, and the reference image sets whose
// FD frames the methods'.
const (
	Alg1Filtered   = "FDP-Alg1+filter"
	RefNoise       = "ref: N(0,I) noise"
	RefBlurred     = "ref: blurred Ψ(X)"
	RefReal        = "ref: real training images"
	refRealSamples = "real"
)

// DiffusionMethods are the trained series of the study, in the order of
// the paper's figures.
func DiffusionMethods() []string {
	return []string{string(fdp.NonPrivate), string(fdp.PublicOnly), string(fdp.DP), string(fdp.DPSGD), string(fdp.Alg1), Alg1Filtered}
}

// DiffusionSettingA is setting A ("AFHQ-like": class-conditional with the
// class in every hidden layer, ε = 8, δ = 1/(2N), batch 256) at a
// profile's sizes: full = 60,000 images (a tenth held out), private
// methods 30 epochs after 10 public pre-training epochs, Non-private and
// Public the paper's 100 epochs (Table I), 2,000 samples against 2,000
// validation images; quick = 1,000 images, 40 epochs of batch 64 after 20
// public ones, 400 samples. Both: the learning rate of {1e−3, 3e−3} with
// the lower held-out DDPM loss, and the average of the iterates with
// decay 0.999.
func DiffusionSettingA(p experiments.Profile) DiffusionSetting {
	s := DiffusionSetting{Name: "A", Conditional: true, ClassEveryLayer: true, Hidden: 256, Clip: 0.1, Alpha: 1,
		BlurSigma: 1.5, LRs: []float64{1e-3, 3e-3}, EMA: 0.999, ClassifierEpochs: 10}
	if p == experiments.Full {
		s.Train, s.Val, s.Samples, s.Epochs, s.Pretrain, s.Batch = 0, 2000, 2000, 30, 10, 256
		s.NonPrivateEpochs = 100
		return s
	}
	s.Train, s.Val, s.Samples, s.Epochs, s.Pretrain, s.Batch = 1000, 400, 400, 40, 20, 64
	return s
}

// DiffusionSettingB is setting B ("LSUN-like": unconditional, ε = 0.5, a
// large private batch): full = 60,000 images, private batch 4,096, 30
// epochs after 10 public ones; quick = 1,000 images, batch 256, 60 epochs
// after 30, every method for the same epochs. As in the paper's Table I,
// the non-private and public runs and the public pre-training keep setting
// A's small batch (SmallBatch: 256 full, 64 quick), the private runs alone
// take the large one.
func DiffusionSettingB(p experiments.Profile) DiffusionSetting {
	s := DiffusionSettingA(p)
	s.Name, s.Conditional, s.ClassEveryLayer, s.SmallBatch, s.NonPrivateEpochs = "B", false, false, s.Batch, 0
	if p == experiments.Full {
		s.Batch = 4096
		return s
	}
	s.Epochs, s.Pretrain, s.Batch = 60, 30, 256
	return s
}

// diffusionEps is the privacy target of a setting: s.Eps, or the paper's.
func diffusionEps(s DiffusionSetting) float64 {
	if s.Eps > 0 {
		return s.Eps
	}
	if s.Name == "B" {
		return 0.5
	}
	return 8
}

// diffusionCell is the Config of a cell of fdp-fig7 and fdp-fig8: the
// series, the setting and the comparison set (x).
type diffusionCell struct {
	Series  string
	Setting DiffusionSetting
}

// String describes the cell configuration for error messages.
func (c diffusionCell) String() string {
	return fmt.Sprintf("series=%s setting=%s", c.Series, c.Setting.Name)
}

// diffusionCells lists a setting's cells: every series at every x, reps
// seeds; x is 0 for the FD against all validation images and 1..10 for the
// class k = x−1 (setting A), or 1 for the FD against training images
// (setting B, as the paper's Fig. 8). Every x of a (series, rep) is one
// trained model and one seed (diffusionSeed), and Algorithm 1's filtered
// series shares Algorithm 1's.
func diffusionCells(id string, s DiffusionSetting, reps int) []experiments.Cell {
	xs := []float64{0, 1}
	if s.Conditional {
		xs = make([]float64, 1+len(data.FashionMNISTClasses))
		for i := range xs {
			xs[i] = float64(i)
		}
	}
	series := append(DiffusionMethods(), RefNoise, RefBlurred, RefReal)
	cells := experiments.Grid(id, 0, series, xs, reps)
	for i := range cells {
		cells[i].Config = diffusionCell{Series: cells[i].Method, Setting: s}
		cells[i].Seed = diffusionSeed(id, cells[i].Method, cells[i].Rep)
	}
	return cells
}

// diffusionSeed is the seed of every cell of a series' replicate rep in
// figure id: the seed of its one trained model (or reference sample).
// Algorithm 1's filtered series takes Algorithm 1's seed, so both score
// one trained run (diffusionSeries).
func diffusionSeed(id, series string, rep int) uint64 {
	if series == Alg1Filtered {
		series = string(fdp.Alg1)
	}
	return experiments.CellSeed(0, id, series, 0, rep)
}

// diffusionUnit is the ShardUnit of the diffusion figures: the cell's
// seed. The cells of one trained model (one series and replicate, or one
// ε of fdp-fig7-eps's private methods; Algorithm 1 with its filtered
// series) share their seed and other models' cells have others, so a
// --shard K/N run trains each of its models once and no other shard
// trains them: a cluster run takes about as long as its slowest model.
func diffusionUnit(c experiments.Cell) string { return strconv.FormatUint(c.Seed, 10) }

// diffusionReps is the number of seeds of both profiles.
func diffusionReps(experiments.Profile) int { return 2 }

// diffusionData returns the setting's images (memoised per setting sizes).
func diffusionData(ctx context.Context, memo *experiments.Memo, s DiffusionSetting, dir string) (*DiffusionData, error) {
	v, err := memo.Do(dataKey(s), func() (any, error) { return LoadDiffusionData(ctx, s, dir, 1) })
	if err != nil {
		return nil, err
	}
	return v.(*DiffusionData), nil
}

// dataKey is the memo key of a setting's images: its sizes, blur and
// classifier epochs.
func dataKey(s DiffusionSetting) string {
	return fmt.Sprintf("fdp/diffusion/data/%d/%d/%v/%v", s.Train, s.Val, s.BlurSigma, s.ClassifierEpochs)
}

// diffusionOutcome is what a (series, rep) produced: its samples and
// classes, the run (nil for the references) and the fraction kept by the
// filter.
type diffusionOutcome struct {
	x       []float64
	classes []int
	run     *DiffusionRun
	kept    float64
}

// diffusionSeries trains (or reads) the series of a cell and draws its
// samples, shared through memo by the cells of the same series and seed
// (and Algorithm 1's run by its filtered series).
func diffusionSeries(ctx context.Context, memo *experiments.Memo, s DiffusionSetting, d *DiffusionData, series string, seed uint64) (*diffusionOutcome, error) {
	key := fmt.Sprintf("fdp/diffusion/series/%+v/%s/%d", s, series, seed)
	v, err := memo.Do(key, func() (any, error) { return drawSeries(ctx, memo, s, d, series, seed) })
	if err != nil {
		return nil, err
	}
	return v.(*diffusionOutcome), nil
}

// drawSeries computes diffusionSeries.
func drawSeries(ctx context.Context, memo *experiments.Memo, s DiffusionSetting, d *DiffusionData, series string, seed uint64) (*diffusionOutcome, error) {
	n, p := s.Samples, d.Train.D
	rng := rand.New(rand.NewPCG(seed, 0xd1ff))
	switch series {
	case RefNoise:
		x := make([]float64, n*p)
		for j := range x {
			x[j] = max(-1, min(1, rng.NormFloat64()))
		}
		return &diffusionOutcome{x: x, classes: cyclicClasses(n, s.Conditional), kept: 1}, nil
	case RefBlurred, RefReal:
		src := d.Public
		if series == RefReal {
			src = d.Train
		}
		rows := rng.Perm(src.N)[:min(n, src.N)]
		x, classes := pickRows(src, rows, s.Conditional)
		return &diffusionOutcome{x: x, classes: classes, kept: 1}, nil
	}
	method := fdp.Method(series)
	if series == Alg1Filtered {
		method = fdp.Alg1
	}
	run, err := diffusionRun(ctx, memo, s, d, method, seed)
	if err != nil {
		return nil, err
	}
	x, classes, kept, err := run.Generate(n, series == Alg1Filtered, d.Threshold, rng)
	if err != nil {
		return nil, err
	}
	experiments.WorkFrom(ctx).Add(sampleExamples(s, series))
	if !s.Conditional {
		classes = nil
	}
	return &diffusionOutcome{x: x, classes: classes, run: run, kept: kept}, nil
}

// fashionTrainImages is the size of Fashion-MNIST's training split, the
// images of a setting whose Train is 0.
const fashionTrainImages = 60000

// sampleCost is the cost of drawing one sample (200 denoiser passes) in
// training examples (one forward and backward pass each). Measured on one
// core (GOMAXPROCS=1, CPU time) after each method's training on the quick
// settings: 400 samples took 1.3-1.7 s, 3.7-4.1 ms a sample (the filtered
// series the same per sample drawn), against 0.093 ms (A) and 0.075 ms (B)
// a non-private training example: 39-42 examples a sample in setting A,
// 51-54 in B.
const sampleCost = 45

// trainImages is the number of images a setting trains on: its Train
// images (0 or above the split's size: all) less the held-out tenth
// (splitHoldout), from the setting alone.
func trainImages(s DiffusionSetting) int {
	all := s.Train
	if all <= 0 || all > fashionTrainImages {
		all = fashionTrainImages
	}
	return all - holdoutSize(all)
}

// sampleExamples is the sampling of a trained series in training examples
// (sampleCost each): its Samples, twice for the filtered series, whose
// first round draws twice the samples missing (Generate).
func sampleExamples(s DiffusionSetting, series string) int {
	if series == Alg1Filtered {
		return 2 * s.Samples * sampleCost
	}
	return s.Samples * sampleCost
}

// diffusionWork is the Work of the diffusion figures (unit "examples"):
// the training examples (trainExamples, at every learning rate of LRs) of
// every distinct trained model the cells read, and the sampling
// (sampleExamples) of every distinct trained series, from the cells'
// settings alone. The cells of one model (every x, and Algorithm 1's
// filtered series) train it once; the references train nothing. Cells
// counted cells would arrive in bursts as models finish, the last ones
// (the filtered series and the references) together at the end.
func diffusionWork(_ experiments.Profile, cells []experiments.Cell) int {
	runs, series := map[string]bool{}, map[string]bool{}
	total := 0
	for _, c := range cells {
		cc, ok := c.Config.(diffusionCell)
		name := seriesOf(cc.Series)
		if !ok || !slices.Contains(DiffusionMethods(), name) {
			continue
		}
		s := cc.Setting
		if k := fmt.Sprintf("%+v/%s/%d", s, name, c.Seed); !series[k] {
			series[k] = true
			total += sampleExamples(s, name)
		}
		method := fdp.Method(name)
		if name == Alg1Filtered {
			method = fdp.Alg1
		}
		if k := runKey(s, method, c.Seed); !runs[k] {
			runs[k] = true
			total += len(s.LRs) * s.trainExamples(method, trainImages(s))
		}
	}
	return total
}

// nums are the numeric columns of a series' rows: the filter's pass rate
// and, for a trained run, its ε, z, steps, learning rate, the held-out
// DDPM loss that chose it and the noise ratio.
func (o *diffusionOutcome) nums(s DiffusionSetting) map[string]float64 {
	num := map[string]float64{"kept": o.kept}
	if r := o.run; r != nil {
		num["epsilon"], num["z"], num["steps"], num["lr"], num["holdout_loss"] = r.Eps, r.Z, float64(r.Steps), r.LR, r.HoldoutLoss
		if r.Z > 0 { // ‖noise‖/C of the averaged private gradient: z·√P/m
			num["noise_ratio"] = r.Z * math.Sqrt(float64(r.Model.NumParams())) / float64(s.Batch)
		}
	}
	return num
}

// diffusionRun is TuneDiffusion for a method and seed, memoised.
func diffusionRun(ctx context.Context, memo *experiments.Memo, s DiffusionSetting, d *DiffusionData, method fdp.Method, seed uint64) (*DiffusionRun, error) {
	v, err := memo.Do(runKey(s, method, seed), func() (any, error) { return TuneDiffusion(ctx, s, d, method, diffusionEps(s), seed) })
	if err != nil {
		return nil, err
	}
	return v.(*DiffusionRun), nil
}

// runKey is the memo key of a trained run: it names the model.
func runKey(s DiffusionSetting, method fdp.Method, seed uint64) string {
	return fmt.Sprintf("fdp/diffusion/run/%+v/%s/%d", s, method, seed)
}

// cyclicClasses returns the classes i mod 10 of n images (nil when
// unconditional).
func cyclicClasses(n int, conditional bool) []int {
	if !conditional {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i % len(data.FashionMNISTClasses)
	}
	return out
}

// pickRows copies the rows of src and their classes (nil when
// unconditional).
func pickRows(src *design.Data, rows []int, conditional bool) ([]float64, []int) {
	p := src.D
	x := make([]float64, 0, len(rows)*p)
	var classes []int
	for _, i := range rows {
		x = append(x, src.X[i*p:(i+1)*p]...)
		if conditional {
			classes = append(classes, int(src.Y[i]))
		}
	}
	return x, classes
}

// cellSeries returns the setting, the images and the series' samples of a
// diffusion cell (trained or read from env.Memo).
func cellSeries(ctx context.Context, c experiments.Cell, env experiments.Env) (DiffusionSetting, *DiffusionData, *diffusionOutcome, error) {
	cc, ok := c.Config.(diffusionCell)
	if !ok {
		return DiffusionSetting{}, nil, nil, fmt.Errorf("cell config is %T", c.Config)
	}
	s := cc.Setting
	d, err := diffusionData(ctx, env.Memo, s, env.DataDir)
	if err != nil {
		return s, nil, nil, err
	}
	out, err := diffusionSeries(ctx, env.Memo, s, d, seriesOf(cc.Series), c.Seed)
	return s, d, out, err
}

// diffusionFigureRun computes a cell of fdp-fig7 or fdp-fig8.
func diffusionFigureRun(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
	s, d, out, err := cellSeries(ctx, c, env)
	if err != nil {
		return nil, err
	}
	ref, nRef := d.Val, s.Samples
	if !s.Conditional && c.X == 1 {
		ref = d.Train
	}
	num := out.nums(s)
	x, classes := out.x, out.classes
	if s.Conditional && c.X > 0 {
		x, classes = onlyClass(x, classes, int(c.X)-1, d.Train.D)
		ref = classRows(ref, int(c.X)-1, nRef)
		nRef = ref.N
	}
	sc, err := d.Score(x, classes, ref, nRef)
	if err != nil {
		return nil, err
	}
	ms := []experiments.Measurement{
		{Metric: "fd_classifier", Value: sc.FDClassifier, Num: num},
		{Metric: "fd_pixel", Value: sc.FDPixel},
	}
	if s.Conditional {
		ms = append(ms, experiments.Measurement{Metric: "sample_accuracy", Value: sc.Accuracy})
	}
	return ms, nil
}

// onlyClass keeps the images of class c.
func onlyClass(x []float64, classes []int, c, p int) ([]float64, []int) {
	var ox []float64
	var oc []int
	for i, y := range classes {
		if y == c {
			ox = append(ox, x[i*p:(i+1)*p]...)
			oc = append(oc, y)
		}
	}
	return ox, oc
}

// classRows returns the images of class c among the first n rows of d.
func classRows(d *design.Data, c, n int) *design.Data {
	p := d.D
	var x, y []float64
	for i := range min(n, d.N) {
		if int(d.Y[i]) == c {
			x = append(x, d.X[i*p:(i+1)*p]...)
			y = append(y, d.Y[i])
		}
	}
	out, _ := design.NewData(x, y, len(y), p)
	return out
}

// diffusionSettingsText describes a setting for the figures' Settings;
// eps is its privacy target in words ("" for the setting's ε).
func diffusionSettingsText(s DiffusionSetting, reps int, eps string) string {
	n := "all 60,000 training images (a tenth held out)"
	if s.Train > 0 {
		n = fmt.Sprintf("the first %d training images (a tenth held out)", s.Train)
	}
	if eps == "" {
		eps = fmt.Sprintf("ε = %g", diffusionEps(s))
	}
	cond, in, layer := "class-conditional (class public)", "[x_t, 32-d sinusoidal t, one-hot class]", ""
	if !s.Conditional {
		cond, in = "unconditional", "[x_t, 32-d sinusoidal t]"
	} else if s.ClassEveryLayer {
		layer = " + a learned bias per class on the second hidden layer (the class in every hidden layer)"
	}
	params := 0
	if m, err := s.NewDiffusionModel(); err == nil {
		params = m.NumParams()
	}
	epochs := fmt.Sprintf("%g epochs (FDP methods: %g public epochs first)", s.Epochs, s.Pretrain)
	if s.NonPrivateEpochs > 0 {
		epochs = fmt.Sprintf("%g epochs (Non-private and Public: %g, as the paper's Table I; FDP methods: %g public epochs first)",
			s.Epochs, s.NonPrivateEpochs, s.Pretrain)
	}
	small := ""
	if s.SmallBatch > 0 && s.SmallBatch != s.Batch {
		small = fmt.Sprintf(" As in the paper's Table I, Non-private, Public and the public pre-training (the FDP methods' "+
			"initialisation) take shuffled batches of %d for the same epochs; only the private steps take the large batch.", s.SmallBatch)
	}
	seeds := "seeds"
	if reps == 1 {
		seeds = "seed"
	}
	return fmt.Sprintf("Fashion-MNIST at 14×14 (2×2 means, [−1, 1]): %s; Ψ = Gaussian blur σ_b = %g px. %s DDPM, "+
		"200 steps, β linear 1e−4…0.02, ε-prediction; denoiser MLP %s → %d → %d → 196, SiLU%s "+
		"(%d parameters). %s, δ = 1/(2N), Poisson batches of expected size %d, %s, "+
		"clip C = %g, z calibrated (Opacus orders, improved conversion), Adam with the learning rate of {%s} that minimises the DDPM loss on "+
		"the held-out training images (every method, the same rule), α = %g. Metrics on %d samples vs %d validation images: FD in the "+
		"hidden layer of a 196 → 128 → 10 classifier trained on the real training images (%g epochs) and in pixel space; %d %s. "+
		"Filter: keep samples whose Laplacian variance ≥ the median of Ψ(X) (public data only).%s",
		n, s.BlurSigma, cond, in, s.Hidden, s.Hidden, layer, params, eps, s.Batch, epochs, s.Clip, joinFloats(s.LRs), s.Alpha,
		s.Samples, s.Val, s.ClassifierEpochs, reps, seeds, small)
}

// joinFloats formats xs as "a, b, c" (%g each).
func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%g", x)
	}
	return strings.Join(parts, ", ")
}

// classTick names x = 0 "all classes" and x = k the class k−1 (the
// groups of fdp-fig7).
func classTick(x float64) string {
	if k := int(x); x == float64(k) && k >= 1 && k <= len(data.FashionMNISTClasses) {
		return data.FashionMNISTClasses[k-1]
	}
	if x == 0 {
		return "all classes"
	}
	return fmt.Sprintf("%g", x)
}

// classIndexTick names x = k the class k (the groups of fdp-samples).
func classIndexTick(x float64) string { return classTick(x + 1) }

// diffusionFigure is the FD figure of one setting (fdp-fig7, fdp-fig8).
func diffusionFigure(id, title, xlabel string, xticks func(float64) string, setting func(experiments.Profile) DiffusionSetting, notes string) experiments.Figure {
	return experiments.Figure{
		ID: id, Paper: "fdp", Title: title, XLabel: xlabel, XTicks: xticks,
		YLabel:   "classifier-FD (lower is better)",
		Metric:   "fd_classifier",
		Plot:     experiments.GroupedBars,
		Datasets: data.FashionMNISTFiles,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			return diffusionCells(id, setting(p), diffusionReps(p)), nil
		},
		Run:       diffusionFigureRun,
		Work:      diffusionWork,
		WorkUnit:  "examples",
		ShardUnit: diffusionUnit,
		Settings:  func(p experiments.Profile) string { return diffusionSettingsText(setting(p), diffusionReps(p), "") },
		Notes:     notes,
	}
}
