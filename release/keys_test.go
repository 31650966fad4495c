package release

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pemOf encodes der as a PEM block of type typ.
func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// Keys round-trip through their PEM forms; a key file of the wrong kind,
// another key type, truncated or with extra blocks is refused with an
// error saying so, which never holds the private key's bytes.
func TestParseKeys(t *testing.T) {
	priv := testKey(3)
	privPEM, err := MarshalPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := MarshalPublicKey(priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if k, err := ParsePrivateKey(privPEM); err != nil || !k.Equal(priv) {
		t.Fatalf("private key round trip: %v", err)
	}
	if k, err := ParsePublicKey(pubPEM); err != nil || !k.Equal(priv.Public()) {
		t.Fatalf("public key round trip: %v", err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPubDER, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	x, _ := ecdh.X25519().GenerateKey(rand.Reader)
	xDER, _ := x509.MarshalPKCS8PrivateKey(x)
	block, _ := pem.Decode(privPEM)
	for _, c := range []struct {
		name, says string
		b          []byte
		private    bool
	}{
		{"public key as private", "holds a public key", pubPEM, true},
		{"private key as public", "holds a private key", privPEM, false},
		{"ECDSA private", "ECDSA key", pemOf("PRIVATE KEY", ecDER), true},
		{"ECDSA public", "ECDSA key", pemOf("PUBLIC KEY", ecPubDER), false},
		{"X25519 private", "X25519", pemOf("PRIVATE KEY", xDER), true},
		{"OpenSSH private", `"OPENSSH PRIVATE KEY"`, pemOf("OPENSSH PRIVATE KEY", block.Bytes), true},
		{"truncated private", "not a PEM key file", privPEM[:len(privPEM)/2], true},
		{"truncated DER", "not a valid PKCS #8 key", pemOf("PRIVATE KEY", block.Bytes[:len(block.Bytes)-3]), true},
		{"two blocks", "more than one PEM block", append(append([]byte{}, privPEM...), privPEM...), true},
		{"headers", "PEM headers", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"DEK-Info": "x"}, Bytes: block.Bytes}), true},
		{"empty", "not a PEM key file", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.private {
				_, err = ParsePrivateKey(c.b)
			} else {
				_, err = ParsePublicKey(c.b)
			}
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %v, want one saying %q", err, c.says)
			}
			if err != nil && bytes.Contains([]byte(err.Error()), privPEM[28:60]) {
				t.Error("the error holds the private key")
			}
		})
	}
}

// GenerateKeyFiles writes a key pair that signs and verifies, the private
// key with mode 0600; it refuses an existing file or symbolic link (even
// dangling) at either path without overwrite, writing nothing, and with
// overwrite replaces a link itself, never the user file it names.
func TestGenerateKeyFiles(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "release")
	pub, err := GenerateKeyFiles(name, false)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := LoadPrivateKey(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := LoadPublicKey(name + ".pub"); err != nil || !got.Equal(pub) || !priv.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatalf("the files hold another pair: %v", err)
	}
	if st, err := os.Stat(name + ".key"); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	f := withBound(modelFile(t))
	if err := f.Sign(priv); err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(pub); err != nil {
		t.Errorf("Verify with the generated public key: %v", err)
	}

	if _, err := GenerateKeyFiles(name, false); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "choose another name") {
		t.Errorf("existing pair: %v", err)
	}
	if got, _ := LoadPublicKey(name + ".pub"); !got.Equal(pub) {
		t.Error("the refused call replaced the public key")
	}

	user := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(user, []byte("my notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{user, filepath.Join(dir, "nothing")} {
		link := filepath.Join(dir, "linked")
		os.Remove(link + ".pub")
		if err := os.Symlink(target, link+".pub"); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		if _, err := GenerateKeyFiles(link, false); !errors.Is(err, fs.ErrExist) {
			t.Errorf("a link to %s at .pub: %v", target, err)
		}
		if _, err := os.Lstat(link + ".key"); err == nil {
			t.Errorf("a link to %s at .pub: the private key was written anyway", target)
		}
	}
	link := filepath.Join(dir, "linked")
	os.Remove(link + ".pub")
	os.Symlink(user, link+".pub")
	if _, err := GenerateKeyFiles(link, true); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if b, _ := os.ReadFile(user); string(b) != "my notes" {
		t.Errorf("overwrite followed the link: the user file holds %q", b)
	}
	if st, err := os.Lstat(link + ".pub"); err != nil || !st.Mode().IsRegular() {
		t.Errorf("overwrite left %v (%v), want a regular file", st.Mode(), err)
	}
}

// LoadPrivateKey refuses a key file that others may read (chmod 600), and
// a key file that is not a regular file; LoadPublicKey a private key.
func TestLoadKeyRefusals(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "k")
	if _, err := GenerateKeyFiles(name, false); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(name+".key", 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPrivateKey(name + ".key"); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("a private key readable by others: %v", err)
		}
		os.Chmod(name+".key", 0o600)
	}
	if _, err := LoadPrivateKey(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := LoadPublicKey(name + ".key"); err == nil || !strings.Contains(err.Error(), "holds a private key") {
		t.Errorf("a private key as public: %v", err)
	}
}

// GenerateKeyFiles with overwrite that cannot move the public key into
// place (a directory there) leaves the old private key as it was and no
// temporary file: both new files are written before either is moved, and
// the private key, which cannot be made again, is moved last. Before, the
// new private key replaced the old one first, then was removed when the
// public key failed: the old private key was lost.
func TestGenerateKeyFilesOverwriteFailureKeepsOldKey(t *testing.T) {
	dir, name, old := newKeyFile(t, ".key")
	if err := os.Remove(name + ".pub"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(name+".pub", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKeyFiles(name, true); err == nil {
		t.Fatal("overwrite onto a directory succeeded")
	}
	if now, err := os.ReadFile(name + ".key"); err != nil || !bytes.Equal(now, old) {
		t.Errorf("the old private key is gone or changed (%v): a failed overwrite must leave it as it was", err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 {
		t.Errorf("the directory holds %q, want k.key and k.pub only (no temporary file)", names)
	}
}

// newKeyFile writes a key pair DIR/k.key, DIR/k.pub in a new directory and
// returns DIR, DIR/k and the content of the file DIR/k+ext.
func newKeyFile(t *testing.T, ext string) (dir, name string, content []byte) {
	t.Helper()
	dir = t.TempDir()
	name = filepath.Join(dir, "k")
	if _, err := GenerateKeyFiles(name, false); err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(name + ext)
	if err != nil {
		t.Fatal(err)
	}
	return dir, name, content
}

// writeKeyFiles without overwrite, when the private key's path appeared
// after GenerateKeyFiles' check (a file made meanwhile), refuses it with
// fs.ErrExist, leaves that file as it was, and leaves neither the public
// key it had moved into place nor a temporary file behind; a successful
// call leaves the two key files alone in the directory.
func TestWriteKeyFilesAppeared(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "k")
	if err := os.WriteFile(name+".key", []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []keyFile{{name + ".key", []byte("private"), 0o600}, {name + ".pub", []byte("public"), 0o644}}
	if err := writeKeyFiles(files, false); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), name+".key exists") {
		t.Errorf("writeKeyFiles over an appeared file: %v, want fs.ErrExist naming it", err)
	}
	if b, _ := os.ReadFile(name + ".key"); string(b) != "theirs" {
		t.Errorf("the appeared file holds %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries left, want the appeared file alone", len(entries))
	}
	os.Remove(name + ".key")
	if err := writeKeyFiles(files, false); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 || entries[0].Name() != "k.key" || entries[1].Name() != "k.pub" {
		t.Errorf("entries %v, want k.key and k.pub alone", entries)
	}
}
