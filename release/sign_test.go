package release

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
)

// testKey is the fixed Ed25519 key of seed byte s (repeated 32 times).
func testKey(s byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{s}, ed25519.SeedSize))
}

// signedFile is modelFile (with an attribute-inference bound) signed by
// testKey(1).
func signedFile(t testing.TB) *File {
	t.Helper()
	f := withBound(modelFile(t))
	if err := f.Sign(testKey(1)); err != nil {
		t.Fatal(err)
	}
	return f
}

// reread writes f and reads it back.
func reread(t *testing.T, f *File) (*File, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return Read(&buf)
}

// A model file written before signatures existed (version 1, no signature
// block) still loads, is unsigned (Verify: ErrUnsigned) and is written
// back byte for byte: an unsigned file's format is unchanged.
func TestReadUnsignedVersion1(t *testing.T) {
	b, err := os.ReadFile("testdata/unsigned-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("a version-1 file no longer loads: %v", err)
	}
	if f.Version != FileVersion || f.Signer() != "" {
		t.Errorf("version %d, signer %q: want %d, unsigned", f.Version, f.Signer(), FileVersion)
	}
	if err := f.Verify(testKey(1).Public().(ed25519.PublicKey)); !errors.Is(err, ErrUnsigned) {
		t.Errorf("Verify of an unsigned file: %v, want ErrUnsigned", err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), b) {
		t.Error("an unsigned file is no longer written as version-1 files were")
	}
}

// Verify accepts the signer's key only: another key, a file whose signature
// was stripped (version 1 again, checksum recomputed) or replaced by
// another key's are refused, naming the fingerprints.
func TestVerify(t *testing.T) {
	pub := testKey(1).Public().(ed25519.PublicKey)
	other := testKey(2).Public().(ed25519.PublicKey)
	for _, c := range []struct {
		name string
		file func(t testing.TB) *File
		key  ed25519.PublicKey
		want error  // nil: verified
		says string // in the error
	}{
		{"signer's key", signedFile, pub, nil, ""},
		{"another key", signedFile, other, ErrSignature, "signed by key " + Fingerprint(pub) + ", not by the given key " + Fingerprint(other)},
		{"unsigned", func(t testing.TB) *File { return withBound(modelFile(t)) }, pub, ErrUnsigned, "not signed"},
		{"signature stripped", func(t testing.TB) *File {
			f := signedFile(t)
			f.Signature, f.Version = nil, FileVersion
			return f
		}, pub, ErrUnsigned, "featuredp train --sign-key"},
		{"signed again by another key", func(t testing.TB) *File {
			f := signedFile(t)
			if err := f.Sign(testKey(2)); err != nil {
				t.Fatal(err)
			}
			return f
		}, pub, ErrSignature, "signed by key " + Fingerprint(other)},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := reread(t, c.file(t))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			err = f.Verify(c.key)
			if !errors.Is(err, c.want) || c.want == nil && err != nil || err != nil && !strings.Contains(err.Error(), c.says) {
				t.Errorf("Verify: %v, want %v saying %q", err, c.want, c.says)
			}
		})
	}
}

// A signed file edited in a way its content checks allow (notes, the
// build, a parameter, a bound dropped, the target ε raised), its checksum
// recomputed, is refused by Read with ErrSignature; the same edit of an
// unsigned file loads, so the signature is what catches it.
func TestSignedEditRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*File)
	}{
		{"note added", func(f *File) { f.Certificate.Notes = append(f.Certificate.Notes, "audited by a third party") }},
		{"build", func(f *File) { f.Certificate.Featuredp = "v9.9.9 (audited)" }},
		{"parameter", func(f *File) { f.Model.Theta[0] += 1 }},
		{"attribute-inference bound dropped", func(f *File) { f.Certificate.AttributeInference = nil }},
		{"signer's key replaced", func(f *File) {
			f.Signature.PublicKey = base64.StdEncoding.EncodeToString(testKey(2).Public().(ed25519.PublicKey))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := signedFile(t)
			c.edit(f)
			if err := f.Validate(); err != nil {
				t.Fatalf("the edit is caught by the content checks, not the signature: %v", err)
			}
			_, err := Read(bytes.NewReader(writeUnchecked(t, f)))
			if !errors.Is(err, ErrSignature) {
				t.Errorf("Read of the edited signed file: %v, want ErrSignature", err)
			}
			if c.name == "signer's key replaced" {
				return
			}
			u := withBound(modelFile(t))
			c.edit(u)
			if _, err := Read(bytes.NewReader(writeUnchecked(t, u))); err != nil {
				t.Errorf("the same edit of an unsigned file: %v", err)
			}
		})
	}
}

// The content checks still apply to a signed file: a certificate whose ε
// was lowered and statement rewritten, signed again, is refused by Sign.
func TestSignRefusesInvalidFile(t *testing.T) {
	f := withBound(modelFile(t))
	f.Certificate.Epsilon /= 100
	f.Certificate.Statement = f.Certificate.statement()
	if err := f.Sign(testKey(1)); !errors.Is(err, ErrFormat) || f.Signature != nil || f.Version != FileVersion {
		t.Errorf("Sign of an invalid file: %v (signature %v, version %d)", err, f.Signature, f.Version)
	}
}

// A malformed signature block is refused by Read (checksum recomputed):
// another algorithm, a key or value of the wrong length or not in
// canonical standard base64, a signature over other bytes, a signed
// version without a signature and an unsigned one with.
func TestReadHostileSignature(t *testing.T) {
	pubB64 := func(f *File) string { return f.Signature.PublicKey }
	for _, c := range []struct {
		name string
		edit func(*File)
		want error
	}{
		{"algorithm", func(f *File) { f.Signature.Algorithm = "rsa" }, ErrSignature},
		{"short key", func(f *File) { f.Signature.PublicKey = base64.StdEncoding.EncodeToString(make([]byte, 31)) }, ErrSignature},
		{"key not base64", func(f *File) { f.Signature.PublicKey = "*" + pubB64(f)[1:] }, ErrSignature},
		{"key unpadded", func(f *File) { f.Signature.PublicKey = strings.TrimRight(pubB64(f), "=") }, ErrSignature},
		{"long value", func(f *File) { f.Signature.Value += "AAAA" }, ErrSignature},
		{"empty value", func(f *File) { f.Signature.Value = "" }, ErrSignature},
		{"value over other bytes", func(f *File) {
			f.Signature.Value = base64.StdEncoding.EncodeToString(ed25519.Sign(testKey(1), []byte("another model")))
		}, ErrSignature},
		{"value over the bytes without prefix", func(f *File) {
			msg, _ := f.SignedBytes()
			f.Signature.Value = base64.StdEncoding.EncodeToString(ed25519.Sign(testKey(1), msg[len(signaturePrefix):]))
		}, ErrSignature},
		{"version 2 unsigned", func(f *File) { f.Signature = nil }, ErrFormat},
		{"version 1 signed", func(f *File) { f.Version = FileVersion }, ErrFormat},
		{"version 3", func(f *File) { f.Version = 3 }, ErrFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := signedFile(t)
			c.edit(f)
			if _, err := Read(bytes.NewReader(writeUnchecked(t, f))); !errors.Is(err, c.want) {
				t.Errorf("Read: %v, want %v", err, c.want)
			}
		})
	}
}

// A file changed after Sign is refused by Write (sign it again); a key
// that is not an Ed25519 private key is refused by Sign, the file left
// unchanged, and the error does not hold the key.
func TestSignAndWriteRefusals(t *testing.T) {
	f := signedFile(t)
	f.Model.Theta[1] = 7
	if err := f.Write(&bytes.Buffer{}); !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "sign it again") {
		t.Errorf("Write of a file changed after Sign: %v", err)
	}
	mismatched := append(ed25519.PrivateKey(nil), testKey(1)...)
	copy(mismatched[32:], testKey(2)[32:])
	for name, k := range map[string]ed25519.PrivateKey{"short": testKey(1)[:40], "nil": nil, "halves of two keys": mismatched} {
		g := withBound(modelFile(t))
		err := g.Sign(k)
		if !errors.Is(err, ErrSignature) || g.Signature != nil || g.Version != FileVersion {
			t.Errorf("%s key: %v (signature %v, version %d)", name, err, g.Signature, g.Version)
		}
		if err != nil && len(k) > 0 && strings.Contains(err.Error(), base64.StdEncoding.EncodeToString(k[:16])) {
			t.Errorf("%s key: the error holds the key", name)
		}
	}
}

// Fingerprint is "sha256:" and 32 hex digits, differs between keys, and
// is empty for a key of another length.
func TestFingerprint(t *testing.T) {
	a, b := Fingerprint(testKey(1).Public().(ed25519.PublicKey)), Fingerprint(testKey(2).Public().(ed25519.PublicKey))
	if !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+32 || a == b {
		t.Errorf("fingerprints %q, %q", a, b)
	}
	if got := Fingerprint(make([]byte, 31)); got != "" {
		t.Errorf("31-byte key: %q", got)
	}
	var none *File
	if _, err := none.SignedBytes(); !errors.Is(err, ErrUnsigned) || none.Signer() != "" {
		t.Errorf("nil file: SignedBytes %v, Signer %q", err, none.Signer())
	}
	if got := signedFile(t).Signer(); got != a {
		t.Errorf("Signer %q, want %q", got, a)
	}
}
