package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkLoadAdult(b *testing.B) {
	opts := Options{Dir: realDataDir(b), Offline: true, CacheDir: b.TempDir(), Deduplicate: true}
	for b.Loop() {
		if _, err := LoadAdult(opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeAdult(b *testing.B) {
	ds, err := LoadAdult(Options{Dir: realDataDir(b), Offline: true, CacheDir: b.TempDir(), Deduplicate: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Encode(ds.Frame, ds.Schema, EncodeOptions{Scale: MinMax}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadIDXFashionTrainImages(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(FashionMNISTDir, "train-images-idx3-ubyte.gz"))
	if err != nil {
		b.Skipf("Fashion-MNIST absent: %v", err)
	}
	for b.Loop() {
		if _, err := ReadIDX(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}
