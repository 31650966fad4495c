package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/safefile"
)

// IDX magic numbers of the unsigned-byte files ReadIDX accepts.
const (
	// IDXLabels is the magic of a 1-dimensional ubyte file (labels).
	IDXLabels = 0x00000801
	// IDXImages is the magic of a 3-dimensional ubyte file (images).
	IDXImages = 0x00000803
)

// MaxIDXBytes bounds the payload ReadIDX accepts (256 MiB; the
// Fashion-MNIST training images are 47 MB).
const MaxIDXBytes = 256 << 20

// ErrIDX wraps every error from ReadIDX.
var ErrIDX = errors.New("malformed IDX data")

// IDX is the content of an unsigned-byte IDX file.
type IDX struct {
	// Magic is IDXLabels or IDXImages.
	Magic uint32
	// Dims are the dimensions: [n] for labels, [n, rows, cols] for images.
	Dims []int
	// Data holds the product of Dims bytes, row-major.
	Data []byte
}

// ReadIDX reads an unsigned-byte IDX file (magic 0x00000801 for labels or
// 0x00000803 for images), gunzipping it first if it starts with the gzip
// magic 1f 8b. It is strict: every dimension must be at least 1, the
// payload at most MaxIDXBytes, the data exactly as long as the dimensions
// say (truncated data and trailing bytes are errors). Memory grows with the
// bytes actually read, not with the sizes the header claims.
func ReadIDX(r io.Reader) (*IDX, error) {
	if r == nil {
		return nil, fmt.Errorf("data: ReadIDX: nil reader: %w", ErrIDX)
	}
	br := bufio.NewReader(r)
	var src io.Reader = br
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("data: ReadIDX: bad gzip header: %v: %w", err, ErrIDX)
		}
		defer zr.Close()
		// Cap the decompressed bytes, not only the header's claim: the
		// header (≤ 16 bytes), at most MaxIDXBytes of data and one byte
		// to detect trailing data.
		src = io.LimitReader(zr, 16+MaxIDXBytes+1)
	}
	var magic uint32
	if err := binary.Read(src, binary.BigEndian, &magic); err != nil {
		return nil, fmt.Errorf("data: ReadIDX: reading the magic number: %v: %w", err, ErrIDX)
	}
	var ndim int
	switch magic {
	case IDXLabels:
		ndim = 1
	case IDXImages:
		ndim = 3
	default:
		return nil, fmt.Errorf("data: ReadIDX: magic 0x%08x is not supported (want 0x%08x for ubyte labels or 0x%08x for ubyte images): %w",
			magic, IDXLabels, IDXImages, ErrIDX)
	}
	dims := make([]int, ndim)
	total := int64(1)
	for i := range dims {
		var d uint32
		if err := binary.Read(src, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("data: ReadIDX: reading dimension %d of %d: %v: %w", i+1, ndim, err, ErrIDX)
		}
		if d == 0 {
			return nil, fmt.Errorf("data: ReadIDX: dimension %d is 0: %w", i+1, ErrIDX)
		}
		if int64(d) > MaxIDXBytes/total {
			return nil, fmt.Errorf("data: ReadIDX: dimensions %v... exceed the limit of %d bytes: %w", append(dims[:i:i], int(d)), MaxIDXBytes, ErrIDX)
		}
		total *= int64(d)
		dims[i] = int(d)
	}
	data, err := readBounded(src, total)
	if err != nil {
		return nil, fmt.Errorf("data: ReadIDX: dimensions %v: %w", dims, err)
	}
	var one [1]byte
	switch k, err := io.ReadFull(src, one[:]); {
	case k > 0:
		return nil, fmt.Errorf("data: ReadIDX: trailing bytes after the %d data bytes of dimensions %v: %w", total, dims, ErrIDX)
	case err != io.EOF:
		return nil, fmt.Errorf("data: ReadIDX: after the data: %v: %w", err, ErrIDX)
	}
	return &IDX{Magic: magic, Dims: dims, Data: data}, nil
}

// idxChunk is the unit in which readBounded allocates while reading.
const idxChunk = 4 << 20

// readBounded reads exactly total bytes. A header that claims more data
// than the stream holds costs at most one chunk: the full buffer is
// allocated only once the first idxChunk bytes have arrived, and the rest
// is read into it directly, so the peak is total + one chunk (a fresh
// buffer's pages become resident only as they are written), never twice
// the data.
func readBounded(r io.Reader, total int64) ([]byte, error) {
	first := make([]byte, min(total, idxChunk))
	if n, err := io.ReadFull(r, first); err != nil {
		return nil, truncated(total, int64(n), err)
	}
	if total <= idxChunk {
		return first, nil
	}
	out := make([]byte, total)
	copy(out, first)
	first = nil
	n, err := io.ReadFull(r, out[idxChunk:])
	if err != nil {
		return nil, truncated(total, idxChunk+int64(n), err)
	}
	return out, nil
}

func truncated(total, got int64, err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated data: need %d bytes, got %d: %w", total, got, ErrIDX)
	}
	return fmt.Errorf("reading data after %d of %d bytes: %v: %w", got, total, err, ErrIDX)
}

// FashionMNISTDir is where the Debian package dataset-fashion-mnist
// installs the Fashion-MNIST files.
const FashionMNISTDir = DefaultSystemData + "/fashion-mnist"

// FashionMNISTClasses are the names of the 10 Fashion-MNIST labels.
var FashionMNISTClasses = []string{
	"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
	"Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
}

// ImageSet is a set of labelled greyscale images.
type ImageSet struct {
	// N images of Rows×Cols pixels.
	N, Rows, Cols int
	// Pixels holds N·Rows·Cols bytes, image after image, row-major.
	Pixels []byte
	// Labels holds N class indices.
	Labels []byte
}

// Image returns the pixels of image i (a slice into Pixels; nil for a nil
// *ImageSet).
func (s *ImageSet) Image(i int) []byte {
	if s == nil {
		return nil
	}
	p := s.Rows * s.Cols
	return s.Pixels[i*p : (i+1)*p]
}

// ToModelsData returns the images as a design.Data with pixels scaled to
// [0, 1] (x/255) and Y the class index. A nil *ImageSet is an error.
func (s *ImageSet) ToModelsData() (*design.Data, error) {
	if s == nil {
		return nil, errors.New("data: ToModelsData: nil *ImageSet: use the Train or Test set of LoadFashionMNIST or OpenFashionMNIST and check its error")
	}
	x := make([]float64, len(s.Pixels))
	for i, p := range s.Pixels {
		x[i] = float64(p) / 255
	}
	y := make([]float64, len(s.Labels))
	for i, l := range s.Labels {
		y[i] = float64(l)
	}
	d, err := design.NewData(x, y, s.N, s.Rows*s.Cols)
	if err != nil {
		return nil, fmt.Errorf("data: ImageSet.ToModelsData: %w", err)
	}
	return d, nil
}

// FashionMNIST holds the 60,000 training and 10,000 test images.
type FashionMNIST struct {
	// Train has 60,000 images, Test 10,000.
	Train, Test *ImageSet
}

// LoadFashionMNIST reads the four Fashion-MNIST IDX files
// (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte, each gzipped with a .gz suffix or not) from dir,
// or from FashionMNISTDir if dir is "".
func LoadFashionMNIST(dir string) (*FashionMNIST, error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	train, err := loadImageSet(dir, "train")
	if err != nil {
		return nil, err
	}
	test, err := loadImageSet(dir, "t10k")
	if err != nil {
		return nil, err
	}
	return &FashionMNIST{Train: train, Test: test}, nil
}

// FashionMNISTFiles are the dataset-registry names of Fashion-MNIST's four
// files: training images and labels, test images and labels.
var FashionMNISTFiles = []string{
	"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
	"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
}

// OpenFashionMNIST finds Fashion-MNIST's four files where Fetch finds them
// (Options.Dir, $FEATUREDP_DATA, the cache, each also in a fashion-mnist
// sub-directory, then SystemDataDir()/fashion-mnist), verifies each against the dataset
// registry (the official gzip bytes, or the same decompressed content, as
// in Debian's package), downloads a missing one into the cache unless
// Options.Offline, and loads them.
func OpenFashionMNIST(opts Options) (*FashionMNIST, error) {
	paths := make([]string, len(FashionMNISTFiles))
	for i, name := range FashionMNISTFiles {
		p, err := Fetch(name, opts)
		if err != nil {
			return nil, fmt.Errorf("data: Fashion-MNIST: %w", err)
		}
		paths[i] = p
	}
	train, err := loadImageSetPaths(paths[0], paths[1], "train")
	if err != nil {
		return nil, err
	}
	test, err := loadImageSetPaths(paths[2], paths[3], "t10k")
	if err != nil {
		return nil, err
	}
	return &FashionMNIST{Train: train, Test: test}, nil
}

func loadImageSet(dir, prefix string) (*ImageSet, error) {
	images, err := findIDXFile(dir, prefix+"-images-idx3-ubyte")
	if err != nil {
		return nil, err
	}
	labels, err := findIDXFile(dir, prefix+"-labels-idx1-ubyte")
	if err != nil {
		return nil, err
	}
	return loadImageSetPaths(images, labels, prefix)
}

// loadImageSetPaths reads one image file and its label file.
func loadImageSetPaths(imagesPath, labelsPath, prefix string) (*ImageSet, error) {
	images, err := readIDXPath(imagesPath, IDXImages)
	if err != nil {
		return nil, err
	}
	labels, err := readIDXPath(labelsPath, IDXLabels)
	if err != nil {
		return nil, err
	}
	if images.Dims[0] != labels.Dims[0] {
		return nil, fmt.Errorf("data: Fashion-MNIST %s: %d images but %d labels: %w", prefix, images.Dims[0], labels.Dims[0], ErrIDX)
	}
	for i, l := range labels.Data {
		if int(l) >= len(FashionMNISTClasses) {
			return nil, fmt.Errorf("data: Fashion-MNIST %s: label %d of image %d is not a class 0..9: %w", prefix, l, i, ErrIDX)
		}
	}
	return &ImageSet{N: images.Dims[0], Rows: images.Dims[1], Cols: images.Dims[2], Pixels: images.Data, Labels: labels.Data}, nil
}

// findIDXFile returns the path of base (gzipped with a .gz suffix, or
// not) in dir.
func findIDXFile(dir, base string) (string, error) {
	var tried []string
	for _, name := range []string{base + ".gz", base} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("data: Fashion-MNIST file %s %w (tried %v); `featuredp data fetch fashion-mnist` downloads it, "+
		"or install the Debian package dataset-fashion-mnist, or pass the directory that holds the IDX files", base, ErrNotFound, tried)
}

// readIDXPath reads the IDX file at p (gzipped or not) and checks its magic.
func readIDXPath(p string, magic uint32) (*IDX, error) {
	fh, _, err := safefile.Open(p)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer fh.Close()
	idx, err := ReadIDX(fh)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", p, err)
	}
	if idx.Magic != magic {
		return nil, fmt.Errorf("data: %s: magic 0x%08x, want 0x%08x: %w", p, idx.Magic, magic, ErrIDX)
	}
	return idx, nil
}
