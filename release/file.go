package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"unicode/utf8"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/safefile"
	"github.com/featuredp/featuredp/internal/valid"
)

// The model file's format name and version: an unsigned file has version
// FileVersion, a signed one SignedFileVersion. Load refuses any other.
const (
	FileFormat  = "featuredp-model"
	FileVersion = 1
)

// MaxFileBytes caps what Load reads: a model file of the supported models
// is far smaller, and a hostile file cannot make Load use unbounded memory.
const MaxFileBytes = 256 << 20

// MaxLevels caps the levels a model file's encoder lists in each place:
// its features' levels plus its classes (2^20 one-hot columns and
// outputs, far beyond a useful model), its schema's and its options'. A
// hostile file of millions of levels is refused before they are checked
// (a duplicate check and the column names would cost gigabytes).
const MaxLevels = 1 << 20

// CheckLevels refuses an encoder that lists more than MaxLevels levels in
// one place (see MaxLevels); CheckEncoder runs it first.
func CheckLevels(enc *data.Encoder) error {
	counts := [3]int{len(enc.Classes)}
	for _, fe := range enc.Features {
		counts[0] += len(fe.Levels)
	}
	for _, c := range enc.Schema.Columns {
		counts[1] += len(c.Levels)
	}
	for _, lv := range enc.Options.Levels {
		counts[2] += len(lv)
	}
	for i, where := range []string{"its features and classes", "its schema", "its options"} {
		if counts[i] > MaxLevels {
			return fmt.Errorf("release: the encoder lists %d levels in %s, more than MaxLevels = %d: %w", counts[i], where, MaxLevels, ErrFormat)
		}
	}
	return nil
}

// CheckEncoder refuses an encoder a model file cannot hold: more than
// MaxLevels levels in one place, a name or level that is not valid UTF-8,
// a malformed encoding, or one not built from its schema and options alone
// (a feature or label encoding fitted on, or edited to, the data).
// dpnb.Train calls it before training, so that a model it could not save
// is refused before a row is read.
func CheckEncoder(enc *data.Encoder) error {
	if enc == nil {
		return fmt.Errorf("release: nil encoder: %w", ErrFormat)
	}
	if err := CheckLevels(enc); err != nil {
		return err
	}
	if err := validText(enc); err != nil {
		return err
	}
	if err := enc.Validate(); err != nil {
		return fmt.Errorf("release: the model file's encoder: %w (%w)", err, ErrFormat)
	}
	for _, fe := range enc.Features {
		if !fe.Public {
			return fmt.Errorf("release: feature %q's encoding was fitted on the data: a release uses public levels and bounds only (give them in the schema or EncodeOptions)", fe.Column.Name)
		}
	}
	if err := publicFeatures(enc); err != nil {
		return err
	}
	return publicLabel(enc)
}

// validText refuses a column name, level or class that is not valid UTF-8:
// JSON would write it with U+FFFD in place of the bad bytes, so the file
// would not read back as written.
func validText(enc *data.Encoder) error {
	bad := func(what, s string) error {
		return fmt.Errorf("release: %s %q is not valid UTF-8 (JSON cannot hold it as it is): rename it: %w", what, s, ErrFormat)
	}
	for _, c := range enc.Schema.Columns {
		if !utf8.ValidString(c.Name) {
			return bad("column name", c.Name)
		}
		for _, l := range c.Levels {
			if !utf8.ValidString(l) {
				return bad("level of "+c.Name, l)
			}
		}
	}
	for _, fe := range enc.Features {
		for _, l := range fe.Levels {
			if !utf8.ValidString(l) {
				return bad("level of "+fe.Column.Name, l)
			}
		}
	}
	for _, c := range enc.Classes {
		if !utf8.ValidString(c) {
			return bad("class", c)
		}
	}
	return nil
}

// maxRead is MaxFileBytes (a variable so that a test can lower it).
var maxRead = MaxFileBytes

// Errors wrapped by Load.
var (
	// ErrFormat: the file is not a valid featuredp model file: another
	// format or version, malformed (truncated JSON, unknown fields) or
	// inconsistent content (the error says which).
	ErrFormat = errors.New("not a valid featuredp model file")
	// ErrChecksum: the file's content does not match its SHA-256 (it was
	// edited or damaged after it was written).
	ErrChecksum = errors.New("model file checksum mismatch")
)

// File is a released model: everything Predict needs (the public
// encoding and the parameters) and the certificate of what the training
// protected, optionally signed by its publisher (Sign, Verify; version
// SignedFileVersion), with a SHA-256 of the rest. docs/release.md
// documents each field.
type File struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Encoder     *data.Encoder `json:"encoder"`
	Model       ModelSpec     `json:"model"`
	Certificate *Certificate  `json:"certificate"`
	Signature   *Signature    `json:"signature,omitempty"`
	SHA256      string        `json:"sha256"`
}

// checksum is the SHA-256 of the file's JSON with an empty SHA256 field.
func (f *File) checksum() (string, error) {
	c := *f
	c.SHA256 = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// Validate checks that the file is complete and consistent: format and
// version (a signature block, well formed, exactly in a signed file; its
// value is verified by Read, Write and Verify), an encoder consistent with its schema (data.Encoder.Validate)
// whose every parameter is public (no level or bound fitted on the private
// data: each feature's encoding is the one data.NewPublicEncoder builds
// from the file's schema and options, and the label's classes or scaling
// come from its public levels or LabelBounds), a certificate that fits the encoder (its label, protected and
// public columns, relation, ε ≤ target, δ, and the statement its fields
// give: no certificate of another run; an ε no lower than its
// Poisson-subsampled Gaussian training composes to, and attribute-inference
// bounds no lower than Thm 4's at that ε), and a model whose parameter count
// matches its shape and the encoded width, with finite parameters.
func (f *File) Validate() error {
	_, err := f.predictor()
	return err
}

// errNilFile is the error of a method called on a nil *File.
var errNilFile = errors.New("release: nil *File (nil model file): use the file returned by Load or Read and check its error")

// predictor validates the file (see Validate) and returns its model's
// predictor.
func (f *File) predictor() (*predictor, error) {
	switch {
	case f == nil:
		return nil, errNilFile
	case f.Format != FileFormat || f.Version != FileVersion && f.Version != SignedFileVersion:
		return nil, fmt.Errorf("release: format %q version %d: %w (want %q version %d, or %d signed)", f.Format, f.Version, ErrFormat, FileFormat, FileVersion, SignedFileVersion)
	case f.Version == FileVersion && f.Signature != nil:
		return nil, fmt.Errorf("release: a version-%d model file is unsigned but this one has a signature: %w (edited or damaged: restore the original; File.Sign sets version %d)", FileVersion, ErrFormat, SignedFileVersion)
	case f.Version == SignedFileVersion && f.Signature == nil:
		return nil, fmt.Errorf("release: a version-%d model file is signed but this one has no signature: %w (edited or damaged: restore the original, or ask its publisher for the signed file)", SignedFileVersion, ErrFormat)
	case f.Encoder == nil:
		return nil, fmt.Errorf("release: the model file has no encoder: %w", ErrFormat)
	case f.Certificate == nil:
		return nil, fmt.Errorf("release: the model file has no certificate: %w", ErrFormat)
	}
	if f.Signature != nil {
		if err := f.Signature.check(); err != nil {
			return nil, err
		}
	}
	if err := CheckEncoder(f.Encoder); err != nil {
		return nil, err
	}
	if err := f.Certificate.check(f.Encoder); err != nil {
		return nil, err
	}
	if err := valid.FiniteSlice("model parameters", f.Model.Theta); err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	p, err := f.Model.build(f.Encoder.Width())
	if err != nil {
		return nil, err
	}
	want := 1
	if f.Encoder.Schema.Task == data.Classification {
		want = len(f.Encoder.Classes)
		if want < 2 {
			return nil, fmt.Errorf("release: the encoding has %d class(es): a classifier needs at least 2: %w", want, ErrFormat)
		}
	}
	if p.outputs != want {
		return nil, fmt.Errorf("release: model %s gives %d outputs, the encoding has %d classes: %w", f.Model.Kind, p.outputs, want, ErrFormat)
	}
	return p, nil
}

// Write writes the file as indented JSON with its checksum set. A signed
// file whose signature no longer covers its content (changed after Sign)
// is refused: sign it again.
func (f *File) Write(w io.Writer) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if err := f.checkSignature(); err != nil {
		return fmt.Errorf("%w (changed after File.Sign? sign it again)", err)
	}
	f.SHA256 = ""
	sum, err := f.checksum()
	if err != nil {
		return fmt.Errorf("release: encoding the model file: %w", err)
	}
	f.SHA256 = sum
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("release: encoding the model file: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("release: writing the model file: %w", err)
	}
	return nil
}

// Save writes the file to path. It refuses to replace an existing file
// unless overwrite is set (the error wraps fs.ErrExist), and writes through
// a temporary file moved into place, so a failed save never leaves half a
// model; without overwrite the move fails if path appeared meanwhile, so a
// file created by someone else during the write is not replaced either.
// Asked to overwrite a symbolic link, it replaces the link, never the file
// the link names; asked to overwrite a device or a named pipe, it writes
// into it (as a shell's ">" does) instead of replacing it with a plain file.
func (f *File) Save(path string, overwrite bool) error {
	if f == nil {
		return errNilFile // before touching the file system
	}
	var writeErr error
	err := safefile.Write(path, overwrite, func(w io.Writer) error {
		writeErr = f.Write(w)
		return writeErr
	})
	switch {
	case err == nil || err == writeErr:
		return err
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("release: %w: choose another path or allow overwriting it", err)
	}
	return fmt.Errorf("release: saving the model: %w", err)
}

// Read reads a model file, verifying its format, version and checksum and
// validating its content; a signed file's signature must match the key it
// names (ErrSignature otherwise), which proves that the file is intact, not
// who signed it: File.Verify checks that against a trusted public key. It
// reads at most MaxFileBytes; a leading UTF-8
// byte-order mark (an editor's) is ignored.
func Read(r io.Reader) (*File, error) {
	if r == nil {
		return nil, errors.New("release: Read: nil reader")
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(maxRead)+1))
	if err != nil {
		return nil, fmt.Errorf("release: reading the model file: %w", err)
	}
	if len(b) > maxRead {
		return nil, fmt.Errorf("release: the model file is larger than %d bytes: %w", maxRead, ErrFormat)
	}
	// An editor may save the file again with a UTF-8 byte-order mark; it
	// is not content (JSON forbids it, so the checksum never covers it).
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("release: %w: %v (truncated or not JSON?)", ErrFormat, err)
	}
	if head.Format != FileFormat || head.Version != FileVersion && head.Version != SignedFileVersion {
		fix := ""
		if head.Format == FileFormat && head.Version > SignedFileVersion {
			fix = ": a newer featuredp wrote it; read it with that version or a later one"
		}
		return nil, fmt.Errorf("release: format %q version %d: %w (this build reads %q versions %d and %d%s)", head.Format, head.Version, ErrFormat, FileFormat, FileVersion, SignedFileVersion, fix)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("release: %w: %v", ErrFormat, err)
	}
	// A null would decode as 0 (an ε, a bound, a parameter): featuredp
	// never writes one where a value belongs.
	if err := valid.JSONNulls(b, &f); err != nil {
		return nil, fmt.Errorf("release: %w: %v (edited or damaged; train again or restore the original)", ErrFormat, err)
	}
	sum, err := f.checksum()
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	if sum != f.SHA256 {
		return nil, fmt.Errorf("release: %w: the content hashes to %s, the file says %s (edited or damaged; train again or restore the original)", ErrChecksum, sum, f.SHA256)
	}
	// Validate first: its caps (MaxLevels) refuse a hostile file before
	// canonical encodes it a second time.
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := canonical(b, &f); err != nil {
		return nil, err
	}
	if err := f.checkSignature(); err != nil {
		return nil, err
	}
	return &f, nil
}

// canonical checks that b is, whitespace aside, the encoding of f that
// Write produces: the checksum covers the decoded content, and JSON
// decoding forgives a key in another case ("Epsilon"), a repeated key (the
// last wins) and text after the document, none of which Write produces.
func canonical(b []byte, f *File) error {
	want, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	var got bytes.Buffer
	if err := json.Compact(&got, bytes.TrimSpace(b)); err != nil || !bytes.Equal(got.Bytes(), want) {
		return fmt.Errorf("release: %w: the file is not as featuredp wrote it (a key renamed or repeated, a value rewritten, or text after the document): edited or damaged; train again or restore the original", ErrChecksum)
	}
	return nil
}

// Load opens and reads the model file at path (see Read). A path that is
// not a regular file (a named pipe, a device, a directory) is refused,
// without blocking even when a pipe replaces the file as it is opened.
func Load(path string) (*File, error) {
	fh, _, err := openRegular(path, "the model file")
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return f, nil
}

// publicLabel checks that the label's encoding read nothing from the data:
// a classifier's classes are the label's public levels, and a regression
// label is scaled by its public EncodeOptions.LabelBounds or not at all (a
// fitted shift or divisor would be its range or its mean and deviation).
func publicLabel(enc *data.Encoder) error {
	l, ok := enc.Schema.Label()
	if !ok {
		return nil
	}
	switch enc.Schema.Task {
	case data.Classification:
		lv, given := enc.Options.Levels[l.Name]
		if !given {
			lv = l.Levels
		}
		if !slices.Equal(lv, enc.Classes) {
			return fmt.Errorf("release: the classes %q are not the label %q's public levels %q: a release's classes come from the schema or EncodeOptions.Levels, not the data: %w",
				enc.Classes, l.Name, lv, ErrFormat)
		}
	case data.Regression:
		b := enc.Options.LabelBounds
		public := b != nil && enc.LabelClip && enc.LabelShift == b.Lo && enc.LabelDiv == b.Hi-b.Lo
		if !public && (b != nil || enc.LabelShift != 0 || enc.LabelDiv != 1 || enc.LabelClip) {
			return fmt.Errorf("release: the label %q is scaled (shift %v, divisor %v) otherwise than by its public LabelBounds: "+
				"a release's label scaling comes from public bounds, not the data: %w", l.Name, enc.LabelShift, enc.LabelDiv, ErrFormat)
		}
	}
	return nil
}
