package mechanisms

import (
	"syscall"
	"testing"
	"time"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// BenchmarkTrainProbe measures what the probe adds to every Train setup:
// the row probe (probeAll: per-example gradients of synthetic rows) and
// the fast-path check (checkFastPath), for the model sizes of the
// figures: logistic regression on 784 features, the MLP 784-256-10, the
// figures' conditional DDPM on 14×14 images and the feature-DP LossDiff
// of two MLPs 784-256-10. Besides wall time it reports the process's CPU
// time per operation (cpu-ms/op, all threads), which a loaded machine
// distorts less.
func BenchmarkTrainProbe(b *testing.B) {
	mlp := must(models.NewMLP(784, 256, 10, models.Tanh, models.HeadSoftmaxCE))
	ddpm := must(models.NewDDPM(14*14, 10, 256, 32, 200, 1e-4, 0.02))
	ddpm.ClassEveryLayer = true
	pub := &design.Data{N: 1, D: 784, X: make([]float64, 784), Y: []float64{0}}
	for _, c := range []struct {
		name string
		m    models.Model
	}{
		{"Logistic784", must(models.NewLogistic(784, true, 0))},
		{"MLP784-256-10", mlp},
		{"DDPM196-256", ddpm},
		{"LossDiffMLP784-256-10", must(models.NewLossDiff(mlp, mlp, pub))},
	} {
		tr := fastTrainer(c.m, 1)
		b.Run(c.name+"/rows", func(b *testing.B) {
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				tr.probeθ = nil // computed once per Train: counted here
				tr.probeAll()
			}
		})
		b.Run(c.name+"/fast", func(b *testing.B) {
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if err := tr.checkFastPath(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since start per operation of b.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op")
}
