package accounting

// Phase is a run of Steps identical steps of the Poisson-subsampled Gaussian
// mechanism: each record is included independently with probability
// SampleRate, and Gaussian noise of standard deviation NoiseMultiplier × the
// L2 sensitivity is added to the sum. Neighbouring relation: add/remove one
// record. SampleRate = 1 is the full-batch Gaussian mechanism.
type Phase struct {
	SampleRate      float64 // q ∈ [0, 1]
	NoiseMultiplier float64 // z ≥ 0 (z = 0 means no noise: ε = +Inf when q > 0)
	Steps           int     // T ≥ 0, passed explicitly (see the package doc on steps conventions)
}
