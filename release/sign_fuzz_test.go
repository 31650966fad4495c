package release

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
)

// FuzzReadSigned feeds Read and Verify hostile signed model files: as
// given, and resealed (decoded leniently, the checksum recomputed, the
// signature left as it is) so that the fuzzer gets past the checksum to the
// signature. Neither may panic, and Verify with testKey(1)'s public key
// may accept a file only if its signed bytes are ones testKey(1) signed
// (the seeds): no edit of a signed file verifies. Seeds: a signed file,
// truncated, with a value or key of the wrong length, with another
// algorithm, and signed over other bytes.
func FuzzReadSigned(f *testing.F) {
	pub := testKey(1).Public().(ed25519.PublicKey)
	signed := map[string]bool{}
	seed := func(edit func(*File)) []byte {
		g := signedFile(f)
		msg, err := g.SignedBytes()
		if err != nil {
			f.Fatal(err)
		}
		signed[string(msg)] = true
		if edit != nil {
			edit(g)
		}
		sum, _ := g.checksum()
		g.SHA256 = sum
		b, _ := json.MarshalIndent(g, "", " ")
		return b
	}
	good := seed(nil)
	f.Add(good)
	f.Add(good[:len(good)-40])
	f.Add(seed(func(g *File) { g.Signature.Value = g.Signature.Value[4:] }))
	f.Add(seed(func(g *File) { g.Signature.PublicKey = base64.StdEncoding.EncodeToString(make([]byte, 33)) }))
	f.Add(seed(func(g *File) { g.Signature.Algorithm = "ecdsa-p256" }))
	f.Add(seed(func(g *File) {
		g.Signature.Value = base64.StdEncoding.EncodeToString(ed25519.Sign(testKey(1), []byte("other bytes")))
	}))
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(b []byte) {
			g, err := Read(bytes.NewReader(b))
			if err != nil {
				return
			}
			_ = g.Signer()
			if g.Verify(pub) == nil {
				msg, err := g.SignedBytes()
				if err != nil || !signed[string(msg)] {
					t.Fatalf("Verify accepted content testKey(1) never signed (%v)", err)
				}
			}
		}
		check(b)
		if b, ok := reseal(b); ok {
			check(b)
		}
	})
}

// FuzzParseKey feeds the key parsers hostile key files: they return a key
// or an error, never panic, and a private key's error never quotes the
// bytes of its PEM block.
func FuzzParseKey(f *testing.F) {
	priv, _ := MarshalPrivateKey(testKey(1))
	pub, _ := MarshalPublicKey(testKey(1).Public().(ed25519.PublicKey))
	f.Add(priv)
	f.Add(pub)
	f.Add(priv[:len(priv)/2])
	f.Add(bytes.Replace(priv, []byte("PRIVATE"), []byte("OPENSSH PRIVATE"), 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParsePublicKey(b)
		_, err := ParsePrivateKey(b)
		if block, _ := pem.Decode(b); err != nil && block != nil && len(block.Bytes) >= 8 {
			if q := base64.StdEncoding.EncodeToString(block.Bytes); strings.Contains(err.Error(), q) || strings.Contains(err.Error(), string(block.Bytes)) {
				t.Fatalf("the error quotes the key: %v", err)
			}
		}
	})
}
