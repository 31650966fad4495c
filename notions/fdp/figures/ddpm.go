package figures

// The diffusion study (E5): a small DDPM on 14×14 Fashion-MNIST trained by
// the one engine with each method of the feature-DP paper, the blurred
// image as the public feature (docs/feature-dp.md "Private image
// generation").

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/fdp"
)

// DiffusionSetting holds the sizes and hyper-parameters of one setting of
// the diffusion study. Every method uses the same values (none is tuned on
// the FD it is compared on).
type DiffusionSetting struct {
	// Name labels the setting ("A" or "B").
	Name string
	// Train is the number of training images (0: all 60,000) and Val the
	// number of validation images (from the test split) the samples are
	// compared with; Samples is the number of samples per method.
	Train, Val, Samples int
	// Conditional makes the DDPM class-conditional (class public), and
	// ClassEveryLayer gives the class to both hidden layers of the
	// denoiser, not only its input (models.DDPM.ClassEveryLayer), as the
	// paper's U-Net feeds its class embedding to every block.
	Conditional, ClassEveryLayer bool
	// Hidden is the denoiser's width (256 in the paper-scale stand-in).
	Hidden int
	// Epochs are the passes of training (private steps T = Epochs·N/Batch;
	// the non-private and public methods take the same number of steps),
	// Pretrain the public pre-training epochs of the FDP methods.
	Epochs, Pretrain float64
	// NonPrivateEpochs, if > 0, are the passes of the Non-private and
	// Public methods instead of Epochs (the paper's Table I trains them
	// for 100 epochs; the private methods keep Epochs).
	NonPrivateEpochs float64
	// Batch is the expected private batch size (Poisson q = Batch/N) and,
	// unless SmallBatch is set, the batch of the non-private methods.
	Batch int
	// SmallBatch, if > 0, is the batch of the Non-private and Public
	// methods and of the FDP methods' public pre-training, as in the
	// paper's Table I, whose non-private and public runs take batch 128
	// while its LSUN private runs take 16,384. They then run
	// Epochs·N/SmallBatch steps (pre-training Pretrain·N/SmallBatch) of
	// shuffled batches, and the FDP methods start their private steps from
	// the pre-trained θ (the paper's "initialization obtained by training
	// on blurred images"). 0 means Batch, with the pre-training inside the
	// engine run (mechanisms.Config.PublicPretrainSteps).
	SmallBatch int
	// Clip is the per-example clip norm C (of ∇ℓ for DP and FDP (DP-SGD),
	// of ∇ℓ − ∇ℓ_pub for Algorithm 1) and Alpha Algorithm 1's weight α.
	Clip, Alpha float64
	// LRs are the candidate Adam learning rates: every method trains with
	// each and keeps the run with the lowest DDPM loss on the held-out
	// training images (TuneDiffusion; the same rule for every method).
	LRs []float64
	// EMA, if > 0, is the decay of the exponential moving average of the
	// iterates that the run returns (0.999 for DDPMs in Ho et al.): a
	// post-processing of iterates the accountant already covers (DP-SGD's
	// guarantee holds for releasing every θ_t), applied to every method.
	EMA float64
	// Eps is the privacy target ε of the private methods (0: the paper's
	// for the setting, 8 for "A" and 0.5 for "B").
	Eps float64
	// Delta is δ (0: 1/(2N)).
	Delta float64
	// BlurSigma is Ψ's Gaussian blur σ_b in pixels.
	BlurSigma float64
	// ClassifierEpochs trains the feature classifier (Inception's stand-in).
	ClassifierEpochs float64
}

// Steps returns the number of training steps T = ⌈Epochs·N/Batch⌉ for n
// training images, and the public pre-training steps ⌈Pretrain·N/Batch⌉.
func (s DiffusionSetting) Steps(n int) (steps, pretrain int) {
	return s.stepsAt(n, s.Batch)
}

// smallSteps returns the steps of the non-private methods and of the
// public pre-training at the batch SmallBatch (Batch when unset).
func (s DiffusionSetting) smallSteps(n int) (steps, pretrain int) {
	return s.stepsAt(n, s.smallBatch())
}

// stepsAt returns ⌈Epochs·n/b⌉ (at least 1) and ⌈Pretrain·n/b⌉.
func (s DiffusionSetting) stepsAt(n, b int) (steps, pretrain int) {
	per := float64(n) / float64(b)
	return max(1, int(math.Ceil(s.Epochs*per))), int(math.Ceil(s.Pretrain * per))
}

// nonPrivateSteps returns the steps of the Non-private and Public methods:
// ⌈NonPrivateEpochs·n/b⌉ at the small batch b when NonPrivateEpochs is
// set, else smallSteps.
func (s DiffusionSetting) nonPrivateSteps(n int) int {
	steps, _ := s.smallSteps(n)
	if s.NonPrivateEpochs > 0 {
		steps = max(1, int(math.Ceil(s.NonPrivateEpochs*float64(n)/float64(s.smallBatch()))))
	}
	return steps
}

// trainExamples returns the training examples of one TrainDiffusion run
// of method on n images, steps × their nominal batch, its private steps'
// examples at privateCost each: what the run adds to the Work of its
// context. Non-private and Public: nonPrivateSteps at the small batch; DP:
// Steps at Batch; the FDP methods add their public pre-training, inside
// the engine run at Batch, or (SmallBatch set) a separate run at the small
// batch. 0 for any other method.
func (s DiffusionSetting) trainExamples(method fdp.Method, n int) int {
	steps, pre := s.Steps(n)
	_, npPre := s.smallSteps(n)
	private := steps * s.Batch * privateCost(method)
	switch method {
	case fdp.NonPrivate, fdp.PublicOnly:
		return s.nonPrivateSteps(n) * s.smallBatch()
	case fdp.DP:
		return private
	case fdp.DPSGD, fdp.Alg1:
		if s.smallBatch() == s.Batch {
			return pre*s.Batch + private
		}
		return npPre*s.smallBatch() + private
	}
	return 0
}

// alg1Cost is the cost of one of Algorithm 1's private examples in
// training examples (one forward and backward pass of the denoiser): it
// differentiates the loss on the image and on its public view (ℓ − ℓ_pub,
// clipped per example) and adds the gradient of an independent public
// batch. Measured on one core (GOMAXPROCS=1, CPU time) on the quick
// settings: 0.16 ms (B) and 0.20 ms (A) a private example of Algorithm 1
// against 0.075 and 0.093 ms a non-private one, 2.1-2.2×; DP's and FDP
// (DP-SGD)'s private examples took 0.8-1.15×, so they count once.
const alg1Cost = 2

// privateCost returns the cost of a private example of method in training
// examples: alg1Cost for Algorithm 1, 1 for the others.
func privateCost(method fdp.Method) int {
	if method == fdp.Alg1 {
		return alg1Cost
	}
	return 1
}

// stepWork is what the steps of a TrainDiffusion run add to the Work of
// its context (trainExamples): batch examples a step, each of cost from
// the global step from on (the engine run's private steps).
type stepWork struct{ batch, from, cost int }

// at returns the work of global step t.
func (w stepWork) at(t int) int {
	if t >= w.from {
		return w.batch * w.cost
	}
	return w.batch
}

// smallBatch returns SmallBatch, or Batch when unset.
func (s DiffusionSetting) smallBatch() int {
	if s.SmallBatch > 0 {
		return s.SmallBatch
	}
	return s.Batch
}

// DiffusionData are the images of a setting: the training images X, their
// public view Ψ(X) (blurred, labels kept), the held-out training images
// that choose the learning rate, the validation images (test split) the
// samples are compared with, the feature classifier trained on X and the
// filter threshold (from Ψ(X) only).
type DiffusionData struct {
	Train, Public, Holdout, Val *design.Data
	Classifier                  *FeatureClassifier
	Threshold                   float64
}

// LoadDiffusionData prepares the images of setting s from Fashion-MNIST
// (found through dataDir as data.OpenFashionMNIST finds it, verified),
// training the feature classifier with seed.
func LoadDiffusionData(ctx context.Context, s DiffusionSetting, dataDir string, seed uint64) (*DiffusionData, error) {
	fm, err := data.OpenFashionMNIST(fashionOptions(dataDir))
	if err != nil {
		return nil, fmt.Errorf("fdp: diffusion data: %w", err)
	}
	all, err := DiffusionImages(fm.Train, s.Train)
	if err != nil {
		return nil, err
	}
	val, err := DiffusionImages(fm.Test, s.Val)
	if err != nil {
		return nil, err
	}
	return newDiffusionData(ctx, s, all, val, seed)
}

// newDiffusionData splits all into training and held-out images, blurs the
// training images, sets the filter threshold from the blurred ones and
// trains the feature classifier.
func newDiffusionData(ctx context.Context, s DiffusionSetting, all, val *design.Data, seed uint64) (*DiffusionData, error) {
	train, holdout, err := splitHoldout(all)
	if err != nil {
		return nil, err
	}
	pub, err := BlurData(train, DiffusionSide, s.BlurSigma)
	if err != nil {
		return nil, err
	}
	thr, err := FilterThreshold(pub, DiffusionSide)
	if err != nil {
		return nil, err
	}
	clf, err := TrainFeatureClassifier(ctx, train, s.ClassifierEpochs, seed)
	if err != nil {
		return nil, err
	}
	return &DiffusionData{Train: train, Public: pub, Holdout: holdout, Val: val, Classifier: clf, Threshold: thr}, nil
}

// splitHoldout splits off the last tenth of the images (at least 2) as the
// held-out set of the learning-rate choice.
func splitHoldout(all *design.Data) (train, holdout *design.Data, err error) {
	h := holdoutSize(all.N)
	if all.N-h < 2 {
		return nil, nil, fmt.Errorf("fdp: diffusion data: %d images, want at least 4", all.N)
	}
	p, n := all.D, all.N-h
	if train, err = design.NewData(all.X[:n*p], all.Y[:n], n, p); err != nil {
		return nil, nil, err
	}
	holdout, err = design.NewData(all.X[n*p:], all.Y[n:], h, p)
	return train, holdout, err
}

// holdoutSize is the number of splitHoldout's held-out images of n: a
// tenth, at least 2.
func holdoutSize(n int) int { return max(2, n/10) }

// NewDiffusionModel returns the setting's DDPM: 196 pixels, 10 classes
// when conditional (else unconditional; with ClassEveryLayer in both
// hidden layers), hidden width s.Hidden, a 32-d time embedding, 200 steps,
// β linear from 1e−4 to 0.02.
func (s DiffusionSetting) NewDiffusionModel() (*models.DDPM, error) {
	k := 0
	if s.Conditional {
		k = len(data.FashionMNISTClasses)
	}
	m, err := models.NewDDPM(DiffusionSide*DiffusionSide, k, s.Hidden, 32, 200, 1e-4, 0.02)
	if err != nil {
		return nil, err
	}
	m.ClassEveryLayer = s.Conditional && s.ClassEveryLayer
	return m, nil
}

// DiffusionRun is a trained denoiser: its method, parameters, the noise
// multiplier z of a private method and the ε the accountant reports for
// the run (+Inf non-private, 0 public).
type DiffusionRun struct {
	Method fdp.Method
	// LR is the chosen learning rate and HoldoutLoss the DDPM loss on the
	// held-out images that chose it.
	LR, HoldoutLoss float64
	Steps           int
	Model           *models.DDPM
	Theta           []float64
	Z, Eps          float64
	Setting         DiffusionSetting
}

// holdoutKeys fix the draws (t, ε) of the held-out loss: the same for
// every method and learning rate.
var holdoutKeys = []uint64{101, 202, 303}

// TuneDiffusion trains method at every learning rate of s.LRs
// (TrainDiffusion with that rate and seed) and returns the run with the
// lowest DDPM loss on d.Holdout (mean over three fixed draws; the first
// on ties). The held-out images are training images not trained on; the
// test split is never used.
func TuneDiffusion(ctx context.Context, s DiffusionSetting, d *DiffusionData, method fdp.Method, eps float64, seed uint64) (*DiffusionRun, error) {
	if len(s.LRs) == 0 {
		return nil, errors.New("fdp: TuneDiffusion: no learning rates")
	}
	var best *DiffusionRun
	for _, lr := range s.LRs {
		r, err := TrainDiffusion(ctx, s, d, method, eps, lr, seed)
		if err != nil {
			return nil, err
		}
		for _, k := range holdoutKeys {
			r.HoldoutLoss += r.Model.WithKey(k).Loss(r.Theta, d.Holdout, nil) / float64(len(holdoutKeys))
		}
		if math.IsNaN(r.HoldoutLoss) {
			continue
		}
		if best == nil || r.HoldoutLoss < best.HoldoutLoss {
			best = r
		}
	}
	if best == nil {
		return nil, fmt.Errorf("fdp: TuneDiffusion %s: no learning rate gave a finite held-out loss", method)
	}
	return best, nil
}

// TrainDiffusion trains method (NonPrivate, PublicOnly, DP, DPSGD or Alg1)
// on d at the privacy target eps (ignored by the non-private methods)
// through fdp.Train: Poisson rate q = Batch/N, z calibrated so that the
// run's (ε, δ) is the target (Opacus orders, improved conversion), Adam
// with learning rate lr. The returned Eps is the accountant's ε of the
// finished run.
func TrainDiffusion(ctx context.Context, s DiffusionSetting, d *DiffusionData, method fdp.Method, eps, lr float64, seed uint64) (*DiffusionRun, error) {
	if err := valid.Positive("learning rate", lr); err != nil {
		return nil, fmt.Errorf("fdp: TrainDiffusion: %w", err)
	}
	if d == nil || d.Train == nil {
		return nil, errors.New("fdp: TrainDiffusion: no data")
	}
	m, err := s.NewDiffusionModel()
	if err != nil {
		return nil, err
	}
	n := d.Train.N
	steps, pre := s.Steps(n)
	_, npPre := s.smallSteps(n)
	npSteps := s.nonPrivateSteps(n)
	q, delta := float64(s.Batch)/float64(n), s.delta(n)
	setup := fdp.Setup{Model: m, PubModel: m, Data: d.Train, PubData: d.Public, Rate: q, Clip: s.Clip, Steps: steps,
		Alpha: s.Alpha, Optimizer: mechanisms.Adam{LR: lr}, Seed: seed, NonPrivateBatch: s.smallBatch(), NonPrivateSteps: npSteps}
	var ema []float64
	offset := 0 // steps before the engine run's (the separate pre-training)
	// Every step adds its examples to the Work of ctx (trainExamples): the
	// small batch until the engine run of the private methods, then Batch,
	// its private steps at privateCost.
	work, per := experiments.WorkFrom(ctx), stepWork{batch: s.smallBatch(), from: math.MaxInt, cost: 1}
	if s.EMA > 0 || work != nil {
		setup.OnStep = func(t int, theta []float64) {
			work.Add(per.at(t))
			if s.EMA > 0 {
				ema = emaUpdate(ema, theta, s.EMA, offset+t)
			}
		}
	}
	switch method {
	case fdp.NonPrivate, fdp.PublicOnly:
		steps = npSteps
	case fdp.DP, fdp.DPSGD, fdp.Alg1:
		if err := valid.Positive("ε", eps); err != nil {
			return nil, fmt.Errorf("fdp: TrainDiffusion %s: %w", method, err)
		}
		setup.Multiplier, err = accounting.NoiseMultiplier(eps, delta, q, steps, accounting.DefaultOrders(), accounting.DefaultConversion)
		if err != nil {
			return nil, fmt.Errorf("fdp: TrainDiffusion %s: %w", method, err)
		}
		if method != fdp.DP {
			if offset, err = s.pretraining(ctx, &setup, pre, npPre); err != nil {
				return nil, fmt.Errorf("fdp: TrainDiffusion %s: pre-training: %w", method, err)
			}
		}
		// The engine's own pre-training has batch Batch too.
		per = stepWork{batch: s.Batch, from: setup.PretrainSteps + 1, cost: privateCost(method)}
	default:
		return nil, fmt.Errorf("fdp: TrainDiffusion: method %q is not one of the study's", method)
	}
	res, err := fdp.Train(ctx, method, setup)
	if err != nil {
		return nil, fmt.Errorf("fdp: TrainDiffusion: %w", err)
	}
	spent, err := fdp.Epsilon(method, setup, res, delta)
	if err != nil {
		return nil, fmt.Errorf("fdp: TrainDiffusion %s: %w", method, err)
	}
	theta := res.Theta
	if ema != nil {
		theta = ema
	}
	return &DiffusionRun{Method: method, Model: m, Theta: theta, LR: lr, Z: setup.Multiplier, Eps: spent, Steps: steps, Setting: s}, nil
}

// pretraining sets up the public pre-training of an FDP method. With one
// batch for every method (setting A) it is the engine run's own first
// pre steps (Setup.PretrainSteps: uniform public batches of the private
// batch size). When the non-private methods take a smaller batch (setting
// B, the paper's Table I) it is a separate run of the Public method at that
// batch for npPre steps — the "initialisation obtained by training on
// blurred images" — whose θ becomes setup.Init; offset is then npPre, the
// steps run before the engine's (for the EMA's step count).
func (s DiffusionSetting) pretraining(ctx context.Context, setup *fdp.Setup, pre, npPre int) (offset int, err error) {
	if s.smallBatch() == s.Batch {
		setup.PretrainSteps = pre
		return 0, nil
	}
	if npPre == 0 {
		return 0, nil
	}
	if setup.Init, err = pretrainPublic(ctx, *setup, npPre); err != nil {
		return 0, err
	}
	return npPre, nil
}

// pretrainSalt separates the random streams of a separate public
// pre-training from those of the private run that starts from it.
const pretrainSalt = 0x7072657472616e

// pretrainPublic trains the Public method of setup for steps steps (its
// NonPrivateBatch, shuffled) and returns the final θ: the initialisation
// of an FDP method's private steps. setup.OnStep sees these steps first.
func pretrainPublic(ctx context.Context, setup fdp.Setup, steps int) ([]float64, error) {
	setup.NonPrivateSteps, setup.Seed = steps, setup.Seed^pretrainSalt
	res, err := fdp.Train(ctx, fdp.PublicOnly, setup)
	if err != nil {
		return nil, err
	}
	return res.Theta, nil
}

// emaUpdate folds the iterate θ_t into the exponential moving average
// θ̄ ← d·θ̄ + (1−d)·θ_t, d = min(decay, (1+t)/(10+t)) (the warm-up of
// TensorFlow's ExponentialMovingAverage), starting from θ̄ = θ_1.
func emaUpdate(ema, theta []float64, decay float64, t int) []float64 {
	if ema == nil {
		return slices.Clone(theta)
	}
	d := min(decay, float64(1+t)/float64(10+t))
	for j, v := range theta {
		ema[j] = d*ema[j] + (1-d)*v
	}
	return ema
}

// delta returns s.Delta, or 1/(2n) when unset.
func (s DiffusionSetting) delta(n int) float64 {
	if s.Delta > 0 {
		return s.Delta
	}
	return 1 / (2 * float64(n))
}

// Generate draws n samples with the ancestral sampler: class i mod 10 for a
// conditional model. With filter, only samples whose Sharpness is at least
// threshold are kept (at most ⌈n/10⌉ per class), drawing until n are kept
// or 20·n were drawn; it returns the samples, their classes and the
// fraction of the drawn samples that passed the filter (1 without it).
func (r *DiffusionRun) Generate(n int, filter bool, threshold float64, rng *rand.Rand) (x []float64, classes []int, kept float64, err error) {
	if n <= 0 {
		return nil, nil, 0, fmt.Errorf("fdp: Generate: %d samples, want ≥ 1", n)
	}
	k := max(1, r.Model.Classes)
	p := r.Model.P
	drawn, passed := 0, 0
	perClass := make([]int, k) // kept samples of each class, at most ⌈n/k⌉
	for len(classes) < n && drawn < 20*n {
		want := make([]int, 0, n-len(classes))
		for i := len(classes); i < n; i++ {
			want = append(want, i%k)
		}
		if filter { // draw more than missing: about half pass the median
			want = append(want, want...)
		}
		imgs, err := r.Model.Sample(r.Theta, want, rng)
		if err != nil {
			return nil, nil, 0, err
		}
		drawn += len(want)
		for j, c := range want {
			img := imgs[j*p : (j+1)*p]
			if filter {
				sh, err := Sharpness(img, DiffusionSide)
				if err != nil {
					return nil, nil, 0, err
				}
				if sh < threshold {
					continue
				}
				passed++
				if perClass[c] >= (n+k-1)/k {
					continue
				}
			}
			if len(classes) == n {
				continue // counted for the pass rate only
			}
			x = append(x, img...)
			classes = append(classes, c)
			perClass[c]++
		}
	}
	if len(classes) < n {
		return nil, nil, 0, fmt.Errorf("fdp: Generate: the filter kept %d of %d samples, want %d", len(classes), drawn, n)
	}
	if !filter {
		passed = drawn
	}
	return x, classes, float64(passed) / float64(drawn), nil
}

// FeatureClassifier is the study's stand-in for the Inception network of
// FID: an MLP 196 → 128 → 10 (tanh) trained without privacy on the real
// training images. Its hidden layer is the feature map of the
// classifier-FD, its prediction the "does a coat look like a coat" check.
type FeatureClassifier struct {
	MLP   *models.MLP
	Theta []float64
}

// TrainFeatureClassifier trains the classifier on train (labels = classes)
// for the given epochs: Adam lr 1e-3, shuffled batches of 128.
func TrainFeatureClassifier(ctx context.Context, train *design.Data, epochs float64, seed uint64) (*FeatureClassifier, error) {
	m, err := models.NewMLP(train.D, 128, len(data.FashionMNISTClasses), models.Tanh, models.HeadSoftmaxCE)
	if err != nil {
		return nil, err
	}
	sm, err := mechanisms.NewShuffledEpochs(min(128, train.N))
	if err != nil {
		return nil, err
	}
	steps := max(1, int(math.Ceil(epochs*float64(train.N)/128)))
	res, err := mechanisms.Train(ctx, mechanisms.Config{Model: m, Data: train, Steps: steps, Sampler: sm,
		Optimizer: mechanisms.Adam{LR: 1e-3}, Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("fdp: feature classifier: %w", err)
	}
	return &FeatureClassifier{MLP: m, Theta: res.Theta}, nil
}

// Features returns the hidden activations (n×128) of the n images x.
func (c *FeatureClassifier) Features(x []float64, n int) []float64 {
	d, h := c.MLP.D, c.MLP.H
	out := make([]float64, n*h)
	for i := range n {
		c.MLP.HiddenFeatures(c.Theta, x[i*d:(i+1)*d], out[i*h:(i+1)*h])
	}
	return out
}

// Accuracy returns the fraction of the images x classified as labels.
func (c *FeatureClassifier) Accuracy(x []float64, labels []int) float64 {
	if len(labels) == 0 {
		return math.NaN()
	}
	d := c.MLP.D
	prob := make([]float64, c.MLP.K)
	hit := 0
	for i, y := range labels {
		c.MLP.Predict(c.Theta, x[i*d:(i+1)*d], prob)
		best := 0
		for k, v := range prob {
			if v > prob[best] {
				best = k
			}
		}
		if best == y {
			hit++
		}
	}
	return float64(hit) / float64(len(labels))
}

// DiffusionScores are the metrics of a set of samples against the
// validation images.
type DiffusionScores struct {
	// FDPixel and FDClassifier are the Fréchet distances in pixel space
	// (196-d) and in the feature classifier's hidden layer (128-d).
	FDPixel, FDClassifier float64
	// Accuracy is the feature classifier's accuracy on class-conditional
	// samples against their conditioning class (NaN when unconditional).
	Accuracy float64
	// PerClass is the classifier-FD of each class's samples against that
	// class's validation images (nil when unconditional).
	PerClass []float64
}

// Score compares the samples x (classes as drawn; nil when unconditional)
// with the first nRef images of ref (the validation images, or training
// images); PerClass compares each class with ref's images of that class.
func (d *DiffusionData) Score(x []float64, classes []int, ref *design.Data, nRef int) (DiffusionScores, error) {
	if ref == nil || ref.N == 0 {
		return DiffusionScores{}, errors.New("fdp: Score: no reference images")
	}
	p := ref.D
	n := len(x) / p
	nVal := min(nRef, ref.N)
	val := ref.X[:nVal*p]
	var sc DiffusionScores
	var err error
	if sc.FDPixel, err = FrechetDistance(x, n, val, nVal, p); err != nil {
		return sc, err
	}
	clf := d.Classifier
	fx, fv := clf.Features(x, n), clf.Features(val, nVal)
	h := clf.MLP.H
	if sc.FDClassifier, err = FrechetDistance(fx, n, fv, nVal, h); err != nil {
		return sc, err
	}
	sc.Accuracy = math.NaN()
	if classes == nil {
		return sc, nil
	}
	sc.Accuracy = clf.Accuracy(x, classes)
	k := len(data.FashionMNISTClasses)
	sc.PerClass = make([]float64, k)
	for c := range k {
		var a, b []float64
		for i, y := range classes {
			if y == c {
				a = append(a, fx[i*h:(i+1)*h]...)
			}
		}
		for i := range nVal {
			if int(ref.Y[i]) == c {
				b = append(b, fv[i*h:(i+1)*h]...)
			}
		}
		if sc.PerClass[c], err = FrechetDistance(a, len(a)/h, b, len(b)/h, h); err != nil {
			sc.PerClass[c] = math.NaN() // fewer than 2 images of the class
		}
	}
	return sc, nil
}
