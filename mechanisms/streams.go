package mechanisms

import (
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Standard stream purposes used by Train. Any other string is a valid
// purpose too.
const (
	// PurposeSampling is the private batch sampler's stream (Algorithm 1 of
	// the feature-DP paper: the private batch, stream A).
	PurposeSampling = "sampling"
	// PurposePublicSampling is the public batch sampler's stream (Algorithm
	// 1's public batch, stream B), independent of the private one.
	PurposePublicSampling = "public-sampling"
	// PurposeNoise is the stream of the privacy noise.
	PurposeNoise = "noise"
	// PurposeInit is the stream of random parameter initialisation.
	PurposeInit = "init"
	// PurposeModel is the stream of the per-step keys of a loss with
	// randomness of its own (models.Stochastic: DDPM's diffusion step and
	// noise draws).
	PurposeModel = "model"
)

// streamsDomain separates this package's key derivation from any other use
// of SHA-256 on the same bytes.
const streamsDomain = "featuredp/mechanisms/streams/v1"

// Streams is a node of a tree of independent random streams. A node is
// identified by its path from the root: the seed, then a sequence of labels
// (Derive) and indices (Split). Its key is a SHA-256 chain over that path,
//
//	key(root) = H(domain ‖ "seed" ‖ seed),  key(child) = H(domain ‖ key(parent) ‖ tag ‖ len ‖ label),
//
// and the generator of purpose p is ChaCha8 keyed by H(domain ‖ key ‖ "rand"
// ‖ len ‖ p). So every sequence depends only on (seed, path, purpose), never
// on scheduling or on how many other streams were used: a grid runner can
// give cell i the node Split(i) and get the same numbers for any worker
// count. Distinct paths give computationally independent streams.
//
// A Streams value is immutable and safe for concurrent use. The generators
// it returns are not safe for concurrent use (math/rand/v2 semantics). A
// nil *Streams is a programmer error: its generator methods panic with a
// message naming the constructors (Secure reports false).
type Streams struct {
	key    [32]byte
	secure bool // every generator from the OS CSPRNG (NewSecureStreams)
}

// Mode is the explicit choice every entry point that releases something
// makes about its randomness.
type Mode int

const (
	// Reproducible (the default, the zero value) draws every random number
	// from seeded streams (NewStreams): the same seed gives the same
	// output, for experiments. Its output is NOT a private release: anyone
	// who knows the seed (0 when none is set) can regenerate the noise and
	// the batches and subtract them.
	Reproducible Mode = iota
	// Secure draws every random number — batch sampling, noise,
	// shuffles, initialisation — from the operating system's CSPRNG
	// (NewSecureStreams): fresh and unpredictable on every run, not
	// reproducible, the mode for a private release.
	Secure
)

// String describes the mode as results and reports state it.
func (m Mode) String() string {
	switch m {
	case Reproducible:
		return "reproducible (seeded; not a private release)"
	case Secure:
		return "secure (OS CSPRNG; not reproducible)"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Validate reports an unknown mode.
func (m Mode) Validate() error {
	if m != Reproducible && m != Secure {
		return fmt.Errorf("mechanisms: unknown mode %d (Reproducible or Secure)", int(m))
	}
	return nil
}

// StreamsFor returns the stream tree of an entry point that takes a Mode,
// a seed and optional streams, so that its result's Mode label always
// matches the randomness used:
//
//   - Reproducible: st if non-nil, else NewStreams(seed); st must be a
//     seeded tree (a NewSecureStreams tree is an error: its output would
//     be labelled reproducible while no seed can reproduce it);
//   - Secure: NewSecureStreams(); seed is ignored and st must be nil or a
//     secure tree (a seeded tree is an error: its noise would be
//     predictable from the seed).
//
// An unknown mode is an error.
func StreamsFor(mode Mode, seed uint64, st *Streams) (*Streams, error) {
	if err := mode.Validate(); err != nil {
		return nil, err
	}
	switch {
	case mode == Secure && st != nil && !st.Secure():
		return nil, errors.New("mechanisms: Mode is Secure but Streams is a seeded stream tree (predictable noise); leave Streams nil or pass NewSecureStreams()")
	case mode == Secure:
		return NewSecureStreams(), nil
	case st != nil && st.Secure():
		return nil, errors.New("mechanisms: Mode is Reproducible but Streams is a secure (OS CSPRNG) tree, which no seed reproduces; set Mode to Secure for a private release, or pass NewStreams(seed)")
	case st != nil:
		return st, nil
	}
	return NewStreams(seed), nil
}

// NewSecureStreams returns a stream tree whose every generator — of any
// node reached by Derive or Split, for any purpose — reads the OS CSPRNG
// (a new CryptoSource each time). Code written against Streams therefore
// runs unchanged in Secure mode, with no seeded randomness left anywhere.
func NewSecureStreams() *Streams { return &Streams{secure: true} }

// Secure reports whether s comes from NewSecureStreams.
func (s *Streams) Secure() bool { return s != nil && s.secure }

// NewStreams returns the root of the stream tree for seed.
func NewStreams(seed uint64) *Streams {
	h := sha256.New()
	h.Write([]byte(streamsDomain))
	h.Write([]byte("seed"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	s := &Streams{}
	h.Sum(s.key[:0])
	return s
}

// errNilStreams is the panic value of Derive, Split and Rand (and so
// Sampling, PublicSampling, Noise and Init) on a nil *Streams: a stream
// tree has no meaningful empty value (a zero key would be a fixed, public
// seed), so a nil one is a programmer error.
var errNilStreams = errors.New("mechanisms: nil *Streams: use NewStreams(seed), NewSecureStreams() or StreamsFor")

// child derives the node reached from s by one path element.
func (s *Streams) child(tag byte, data []byte) *Streams {
	if s == nil {
		panic(errNilStreams)
	}
	h := sha256.New()
	h.Write([]byte(streamsDomain))
	h.Write(s.key[:])
	var b [9]byte
	b[0] = tag
	binary.LittleEndian.PutUint64(b[1:], uint64(len(data)))
	h.Write(b[:])
	h.Write(data)
	c := &Streams{secure: s.secure}
	h.Sum(c.key[:0])
	return c
}

// Derive returns the child node named label (for example "cell/eps=1" or
// "worker"). Derive(a).Derive(b) and Derive(b).Derive(a) differ. It panics
// on a nil *Streams, naming the fix.
func (s *Streams) Derive(label string) *Streams { return s.child('L', []byte(label)) }

// Split returns the i-th indexed child (for example one per grid cell,
// seed replicate or worker). Split(i) and Derive of any label never
// coincide, and negative i are valid distinct indices. It panics on a nil
// *Streams, naming the fix.
func (s *Streams) Split(i int) *Streams {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(int64(i)))
	return s.child('I', b[:])
}

// Rand returns a new generator for purpose, positioned at the start of the
// sequence of (this node, purpose). Calling Rand twice with the same purpose
// returns two generators with the SAME sequence: take one generator per
// purpose, or Derive a child for another independent one. On a secure tree
// (NewSecureStreams) every call returns a fresh CSPRNG-backed generator.
// Rand, Derive and Split panic on a nil *Streams, naming the fix.
func (s *Streams) Rand(purpose string) *rand.Rand {
	if s == nil {
		panic(errNilStreams)
	}
	if s.secure {
		return NewCryptoRand()
	}
	h := sha256.New()
	h.Write([]byte(streamsDomain))
	h.Write(s.key[:])
	var b [9]byte
	b[0] = 'R'
	binary.LittleEndian.PutUint64(b[1:], uint64(len(purpose)))
	h.Write(b[:])
	h.Write([]byte(purpose))
	var seed [32]byte
	h.Sum(seed[:0])
	return rand.New(rand.NewChaCha8(seed))
}

// Sampling returns Rand(PurposeSampling): the private batch stream.
func (s *Streams) Sampling() *rand.Rand { return s.Rand(PurposeSampling) }

// PublicSampling returns Rand(PurposePublicSampling): the public batch
// stream of the feature-DP two-batch step.
func (s *Streams) PublicSampling() *rand.Rand { return s.Rand(PurposePublicSampling) }

// Noise returns Rand(PurposeNoise): the privacy-noise stream.
func (s *Streams) Noise() *rand.Rand { return s.Rand(PurposeNoise) }

// Init returns Rand(PurposeInit): the parameter-initialisation stream.
func (s *Streams) Init() *rand.Rand { return s.Rand(PurposeInit) }

// CryptoSource is a rand.Source whose output comes from the operating
// system's CSPRNG (crypto/rand), read in 512-byte blocks.
//
// It is NOT reproducible: two runs never give the same numbers, whatever
// the seed. Use it for deployments where the noise must be unpredictable,
// never for experiments that must be repeatable. A CryptoSource is not safe
// for concurrent use (like every rand.Source in math/rand/v2); its zero
// value is ready to use.
type CryptoSource struct {
	buf [512]byte
	pos int // bytes of buf already used; 0 with an unfilled buf means empty
	ok  bool
}

// Uint64 returns 64 bits from crypto/rand. (crypto/rand.Read never fails
// in Go ≥ 1.24: if the OS generator fails the program aborts.) It panics
// on a nil *CryptoSource, naming the fix (rand.Source has no error).
func (c *CryptoSource) Uint64() uint64 {
	if c == nil {
		panic("mechanisms: nil *CryptoSource: use NewCryptoRand() or the address of a CryptoSource value (its zero value is ready to use)")
	}
	if !c.ok || c.pos+8 > len(c.buf) {
		crand.Read(c.buf[:])
		c.pos, c.ok = 0, true
	}
	v := binary.LittleEndian.Uint64(c.buf[c.pos:])
	c.pos += 8
	return v
}

// NewCryptoRand returns a generator backed by a new CryptoSource. It is
// non-reproducible by design (see CryptoSource).
func NewCryptoRand() *rand.Rand { return rand.New(&CryptoSource{}) }
