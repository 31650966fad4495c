package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// idxBytes builds an IDX header with the given magic and dims followed by
// payload.
func idxBytes(magic uint32, dims []uint32, payload []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(payload)
	return b.Bytes()
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func TestReadIDX(t *testing.T) {
	images := idxBytes(IDXImages, []uint32{2, 2, 3}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	labels := idxBytes(IDXLabels, []uint32{3}, []byte{0, 9, 4})
	for _, tc := range []struct {
		name string
		in   []byte
		dims []int
		data []byte
	}{
		{"images", images, []int{2, 2, 3}, images[16:]},
		{"labels", labels, []int{3}, []byte{0, 9, 4}},
		{"gzip images", gz(images), []int{2, 2, 3}, images[16:]},
		{"gzip labels", gz(labels), []int{3}, []byte{0, 9, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := ReadIDX(bytes.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idx.Dims, tc.dims) || !bytes.Equal(idx.Data, tc.data) {
				t.Errorf("dims %v data %v", idx.Dims, idx.Data)
			}
		})
	}
}

func TestReadIDXErrors(t *testing.T) {
	corruptGz := gz(idxBytes(IDXLabels, []uint32{3}, []byte{1, 2, 3}))
	corruptGz[len(corruptGz)-6] ^= 0xff // CRC
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "magic"},
		{"short magic", []byte{0, 0, 8}, "magic"},
		{"float type", idxBytes(0x00000d01, []uint32{1}, []byte{0, 0, 0, 0}), "0x00000d01 is not supported"},
		{"2 dims", idxBytes(0x00000802, []uint32{1, 1}, []byte{0}), "not supported"},
		{"missing dims", idxBytes(IDXImages, []uint32{5}, nil), "dimension 2 of 3"},
		{"zero dim", idxBytes(IDXImages, []uint32{5, 0, 3}, nil), "dimension 2 is 0"},
		{"overflow", idxBytes(IDXImages, []uint32{0xffffffff, 0xffffffff, 0xffffffff}, nil), "exceed the limit"},
		{"absurd", idxBytes(IDXLabels, []uint32{MaxIDXBytes + 1}, nil), "exceed the limit"},
		{"truncated", idxBytes(IDXImages, []uint32{1000, 28, 28}, make([]byte, 100)), "dimensions [1000 28 28]: truncated data: need 784000 bytes, got 100"},
		{"trailing", idxBytes(IDXLabels, []uint32{2}, []byte{1, 2, 3}), "trailing bytes"},
		{"bad gzip", []byte{0x1f, 0x8b, 1, 2}, "gzip"},
		{"gzip crc", corruptGz, "checksum"},
		{"gzip truncated", gz(idxBytes(IDXLabels, []uint32{3}, []byte{1, 2, 3}))[:20], ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadIDX(bytes.NewReader(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrIDX) {
				t.Errorf("%v does not wrap ErrIDX", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	if _, err := ReadIDX(nil); err == nil {
		t.Error("nil reader: no error")
	}
}

// A header claiming 200 MB must not allocate 200 MB when the data is not
// there.
func TestReadIDXBoundedAllocation(t *testing.T) {
	in := idxBytes(IDXImages, []uint32{255000, 28, 28}, make([]byte, 10))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadIDX(bytes.NewReader(in))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("no error for truncated data")
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
		t.Errorf("reading a truncated 200 MB header allocated %d bytes", grown)
	}
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(IDXLabels, []uint32{3}, []byte{0, 9, 4}))
	f.Add(idxBytes(IDXImages, []uint32{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(gz(idxBytes(IDXImages, []uint32{1, 2, 2}, []byte{1, 2, 3, 4})))
	f.Add(idxBytes(IDXImages, []uint32{0xffffffff, 2, 2}, nil))
	f.Add(idxBytes(IDXLabels, []uint32{2}, []byte{1, 2, 3}))
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		idx, err := ReadIDX(bytes.NewReader(in))
		if err != nil {
			return
		}
		n := 1
		for _, d := range idx.Dims {
			if d < 1 {
				t.Fatalf("dimension %d accepted", d)
			}
			n *= d
		}
		if n != len(idx.Data) || n > MaxIDXBytes {
			t.Fatalf("dims %v but %d data bytes", idx.Dims, len(idx.Data))
		}
		if idx.Magic != IDXLabels && idx.Magic != IDXImages {
			t.Fatalf("magic 0x%08x accepted", idx.Magic)
		}
	})
}

func TestLoadFashionMNIST(t *testing.T) {
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skipf("Fashion-MNIST test skipped: %s is absent (install the Debian package dataset-fashion-mnist)", FashionMNISTDir)
	}
	fm, err := LoadFashionMNIST("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  *ImageSet
		n    int
	}{{"train", fm.Train, 60000}, {"test", fm.Test, 10000}} {
		s := tc.set
		if s.N != tc.n || s.Rows != 28 || s.Cols != 28 || len(s.Pixels) != tc.n*784 || len(s.Labels) != tc.n {
			t.Errorf("%s: N=%d %dx%d", tc.name, s.N, s.Rows, s.Cols)
		}
		counts := make([]int, 10)
		for _, l := range s.Labels {
			counts[l]++
		}
		for c, k := range counts {
			if k != tc.n/10 { // Fashion-MNIST is balanced
				t.Errorf("%s: class %d (%s) has %d images, want %d", tc.name, c, FashionMNISTClasses[c], k, tc.n/10)
			}
		}
	}
	d, err := fm.Test.ToModelsData()
	if err != nil || d.N != 10000 || d.D != 784 {
		t.Fatalf("ToModelsData: %v", err)
	}
	if len(fm.Test.Image(9999)) != 784 {
		t.Error("Image")
	}
}

func TestLoadFashionMNISTErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadFashionMNIST(dir)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "train-images-idx3-ubyte") || !strings.Contains(err.Error(), "dataset-fashion-mnist") {
		t.Errorf("got %v", err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(dir+"/"+name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train-images-idx3-ubyte", idxBytes(IDXImages, []uint32{2, 1, 1}, []byte{0, 255}))
	write("train-labels-idx1-ubyte.gz", gz(idxBytes(IDXLabels, []uint32{3}, []byte{0, 1, 2})))
	if _, err := LoadFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "2 images but 3 labels") {
		t.Errorf("count mismatch: %v", err)
	}
	write("train-labels-idx1-ubyte.gz", gz(idxBytes(IDXLabels, []uint32{2}, []byte{0, 10})))
	if _, err := LoadFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "label 10") {
		t.Errorf("bad label: %v", err)
	}
	write("train-labels-idx1-ubyte.gz", gz(idxBytes(IDXImages, []uint32{2, 1, 1}, []byte{0, 1})))
	if _, err := LoadFashionMNIST(dir); err == nil || !strings.Contains(err.Error(), "want 0x00000801") {
		t.Errorf("swapped files: %v", err)
	}
}

// A gzip bomb (a few KB that inflate to many MB of zeros under a header
// that claims them) costs about the data once, not twice: the reader used
// to collect chunks and then copy them into a second buffer.
func TestReadIDXGzipBombPeak(t *testing.T) {
	const n = 16 << 20 // 4 chunks
	var raw bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&raw, gzip.BestCompression)
	binary.Write(zw, binary.BigEndian, uint32(IDXLabels))
	binary.Write(zw, binary.BigEndian, uint32(n))
	zw.Write(make([]byte, n))
	zw.Close()
	if raw.Len() > 64<<10 {
		t.Fatalf("bomb is %d bytes", raw.Len())
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	idx, err := ReadIDX(bytes.NewReader(raw.Bytes()))
	runtime.ReadMemStats(&after)
	if err != nil || len(idx.Data) != n {
		t.Fatalf("ReadIDX: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > n+n/2 {
		t.Errorf("reading %d MiB allocated %d MiB (want < 1.5×)", n>>20, alloc>>20)
	}
}
