package release

import (
	"bytes"
	"testing"
)

// bigFile is modelFile with an MLP of 100,000 hidden units (600,002
// parameters, about 12 MB of JSON), signed by testKey(1) when signed.
func bigFile(b *testing.B, signed bool) []byte {
	b.Helper()
	f := modelFile(b)
	f.Model = ModelSpec{Kind: KindMLP, Features: 3, Classes: 2, Hidden: 100_000}
	_, n, err := f.Model.buildMLP(nil)
	if err != nil {
		b.Fatal(err)
	}
	f.Model.Theta = make([]float64, n)
	for i := range f.Model.Theta {
		f.Model.Theta[i] = float64(i%1000)/1000 - 0.5
	}
	if signed {
		if err := f.Sign(testKey(1)); err != nil {
			b.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReadUnsigned and BenchmarkReadSigned read the same 12 MB model
// file, unsigned and signed: the signature's cost on Read is one more
// encoding of the file and an Ed25519 verification of it.
func BenchmarkReadUnsigned(b *testing.B) { benchRead(b, false) }

func BenchmarkReadSigned(b *testing.B) { benchRead(b, true) }

func benchRead(b *testing.B, signed bool) {
	text := bigFile(b, signed)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}
