package release

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// SignedFileVersion is the version of a signed model file: a version-1
// file with a signature block (File.Sign). A version-1 file is unsigned
// and has no such block; featuredp reads both.
const SignedFileVersion = 2

// SignatureAlgorithm is the only algorithm of a model file's signature:
// Ed25519 (RFC 8032), as crypto/ed25519 implements it.
const SignatureAlgorithm = "ed25519"

// signaturePrefix precedes the signed bytes (see File.SignedBytes), so that
// a featuredp signature can never be taken for one over another kind of
// message made with the same key.
const signaturePrefix = "featuredp-model signature v1\n"

// Errors wrapped by File.Verify and, for a signature that does not match
// its own key, by Read and Write.
var (
	// ErrUnsigned: the model file has no signature, so who made it cannot
	// be verified.
	ErrUnsigned = errors.New("model file not signed")
	// ErrSignature: the model file's signature is malformed, was made by
	// another key than the one given, or does not cover the file's content
	// (the file was edited after it was signed).
	ErrSignature = errors.New("model file signature invalid")
)

// Signature is the signature block of a signed model file: the signer's
// Ed25519 public key and its signature over File.SignedBytes, both in
// standard base64 (RFC 4648, with padding). docs/release.md documents it.
type Signature struct {
	Algorithm string `json:"algorithm"`
	PublicKey string `json:"public_key"`
	Value     string `json:"value"`
}

// Fingerprint names an Ed25519 public key in a line: "sha256:" and the
// first 16 bytes (32 hex digits) of the SHA-256 of its 32 raw bytes.
// `featuredp keygen` prints it, and the certificate output names the key
// of a signed file by it. A key of another length has no fingerprint ("").
func Fingerprint(pub ed25519.PublicKey) string {
	if len(pub) != ed25519.PublicKeySize {
		return ""
	}
	h := sha256.Sum256(pub)
	return "sha256:" + hex.EncodeToString(h[:16])
}

// Sign signs the file with the Ed25519 private key priv: it sets Version
// to SignedFileVersion and Signature to priv's public key and its
// signature over SignedBytes, which cover every field of the file (the
// encoder, the model, the certificate and the signer's key) but the
// checksum and the signature value itself; Write then computes the
// checksum over the whole, the signature included. Sign refuses a file
// that Validate refuses and a malformed key, leaving the file unchanged;
// a file changed after Sign is refused by Write (sign it again). No error
// holds the key.
func (f *File) Sign(priv ed25519.PrivateKey) error {
	if f == nil {
		return fmt.Errorf("release: Sign: %w", errNilFile)
	}
	if len(priv) != ed25519.PrivateKeySize || !ed25519.NewKeyFromSeed(priv.Seed()).Equal(priv) {
		return fmt.Errorf("release: Sign: the private key is not an Ed25519 key of %d bytes whose second half is its public key: %w",
			ed25519.PrivateKeySize, ErrSignature)
	}
	g := *f
	g.Version, g.Signature = FileVersion, nil // the content, as an unsigned file
	if err := g.Validate(); err != nil {
		return err
	}
	g.Version = SignedFileVersion
	g.Signature = &Signature{Algorithm: SignatureAlgorithm, PublicKey: base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))}
	msg, err := g.SignedBytes()
	if err != nil {
		return err
	}
	g.Signature.Value = base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))
	*f = g
	return nil
}

// SignedBytes are the bytes a signed file's signature covers: the ASCII
// line "featuredp-model signature v1" and a line feed, then the compact
// JSON encoding (encoding/json, as the checksum's) of the file with an
// empty "sha256" and an empty signature "value". It fails on an unsigned
// file.
func (f *File) SignedBytes() ([]byte, error) {
	if f == nil {
		return nil, fmt.Errorf("%w; a nil file is not signed: %w", errNilFile, ErrUnsigned)
	}
	if f.Signature == nil {
		return nil, fmt.Errorf("release: the model file is not signed: %w", ErrUnsigned)
	}
	c := *f
	c.SHA256 = ""
	s := *f.Signature
	s.Value = ""
	c.Signature = &s
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("release: encoding the model file: %w", err)
	}
	return append([]byte(signaturePrefix), b...), nil
}

// Signer is the Fingerprint of the public key a signed file names, or ""
// for an unsigned file. It does not verify anything: anyone can sign a
// file with a key of their own, so only Verify with a public key obtained
// from the publisher says who made it.
func (f *File) Signer() string {
	if f == nil || f.Signature == nil {
		return ""
	}
	pub, err := f.Signature.publicKey()
	if err != nil {
		return ""
	}
	return Fingerprint(pub)
}

// Verify checks that the file was signed by the holder of the private key
// of pub: an unsigned file wraps ErrUnsigned, a file signed by another key
// or whose signature does not cover its content (edited after it was
// signed, its checksum recomputed) wraps ErrSignature. The errors name
// the keys by Fingerprint and say what to do.
func (f *File) Verify(pub ed25519.PublicKey) error {
	if f == nil {
		return fmt.Errorf("release: Verify: %w", errNilFile)
	}
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("release: Verify: the public key has %d bytes, an Ed25519 key %d", len(pub), ed25519.PublicKeySize)
	}
	if f.Signature == nil {
		return fmt.Errorf("release: the model file is not signed, so it cannot be verified against key %s "+
			"(ask its publisher for the file signed with `featuredp train --sign-key`, or do not verify it): %w", Fingerprint(pub), ErrUnsigned)
	}
	signer, err := f.Signature.publicKey()
	if err != nil {
		return err
	}
	if !signer.Equal(pub) {
		return fmt.Errorf("release: the model file is signed by key %s, not by the given key %s: "+
			"it does not come from that key's holder (get the file or the public key from the publisher again): %w", Fingerprint(signer), Fingerprint(pub), ErrSignature)
	}
	return f.verifyWith(pub)
}

// checkSignature verifies a signed file against the key it names (Read and
// Write): a file whose signature does not match its own content is damaged
// or edited. It proves nothing about who signed it (see Verify).
func (f *File) checkSignature() error {
	if f.Signature == nil {
		return nil
	}
	pub, err := f.Signature.publicKey()
	if err != nil {
		return err
	}
	return f.verifyWith(pub)
}

// verifyWith verifies the file's signature with pub.
func (f *File) verifyWith(pub ed25519.PublicKey) error {
	sig, err := f.Signature.value()
	if err != nil {
		return err
	}
	msg, err := f.SignedBytes()
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fmt.Errorf("release: the signature of key %s does not cover the model file's content: the file was edited or damaged after it was signed "+
			"(restore the original or ask its publisher to sign it again): %w", Fingerprint(pub), ErrSignature)
	}
	return nil
}

// check verifies the signature block's form (Validate): the algorithm,
// a public key of 32 bytes and a value of 64, in standard base64.
func (s *Signature) check() error {
	if s.Algorithm != SignatureAlgorithm {
		return fmt.Errorf("release: the signature's algorithm is %q, featuredp signs with %q: %w", s.Algorithm, SignatureAlgorithm, ErrSignature)
	}
	if _, err := s.publicKey(); err != nil {
		return err
	}
	_, err := s.value()
	return err
}

// publicKey decodes the signer's public key.
func (s *Signature) publicKey() (ed25519.PublicKey, error) {
	b, err := decodeExact("public key", s.PublicKey, ed25519.PublicKeySize)
	return ed25519.PublicKey(b), err
}

// value decodes the signature value.
func (s *Signature) value() ([]byte, error) {
	return decodeExact("value", s.Value, ed25519.SignatureSize)
}

// decodeExact decodes the standard base64 text s of the signature's field
// what, which must hold n bytes and be the canonical encoding of them.
func decodeExact(what, s string, n int) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("release: the signature's %s is not standard base64 (%v): %w", what, err, ErrSignature)
	case len(b) != n:
		return nil, fmt.Errorf("release: the signature's %s has %d bytes, an Ed25519 %s %d: %w", what, len(b), what, n, ErrSignature)
	case base64.StdEncoding.EncodeToString(b) != s:
		return nil, fmt.Errorf("release: the signature's %s is not in canonical base64: %w", what, ErrSignature)
	}
	return b, nil
}
