package release

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Key files are PEM (RFC 7468): a private key is a "PRIVATE KEY" block
// holding its PKCS #8 encoding (RFC 8410), a public key a "PUBLIC KEY"
// block holding its PKIX encoding, the forms `openssl genpkey -algorithm
// ed25519` and `openssl pkey -pubout` write. A private key file is not
// encrypted: its file permissions keep it secret.
const (
	privateKeyBlock = "PRIVATE KEY"
	publicKeyBlock  = "PUBLIC KEY"
)

// maxKeyFileBytes caps what LoadPrivateKey and LoadPublicKey read: an
// Ed25519 key file is about 120 bytes.
const maxKeyFileBytes = 64 << 10

// MarshalPrivateKey is priv as a PEM "PRIVATE KEY" block (PKCS #8).
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("release: the private key has %d bytes, an Ed25519 key %d", len(priv), ed25519.PrivateKeySize)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, errors.New("release: encoding the private key failed")
	}
	return pem.EncodeToMemory(&pem.Block{Type: privateKeyBlock, Bytes: der}), nil
}

// MarshalPublicKey is pub as a PEM "PUBLIC KEY" block (PKIX).
func MarshalPublicKey(pub ed25519.PublicKey) ([]byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("release: the public key has %d bytes, an Ed25519 key %d", len(pub), ed25519.PublicKeySize)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("release: encoding the public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: publicKeyBlock, Bytes: der}), nil
}

// pemBlock decodes the one PEM block of a key file, of type want; what
// names the file in errors. No error holds the file's content.
func pemBlock(b []byte, want, what string) ([]byte, error) {
	block, rest := pem.Decode(b)
	switch {
	case block == nil:
		return nil, fmt.Errorf("%s is not a PEM key file (no -----BEGIN %s----- block; `featuredp keygen` writes one)", what, want)
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, fmt.Errorf("%s holds more than one PEM block: give a file with the key alone", what)
	case block.Type == privateKeyBlock && want == publicKeyBlock:
		return nil, fmt.Errorf("%s holds a private key: verify with the public key (the .pub file `featuredp keygen` wrote beside it), and keep the private key secret", what)
	case block.Type == publicKeyBlock && want == privateKeyBlock:
		return nil, fmt.Errorf("%s holds a public key: sign with the private key (the .key file `featuredp keygen` wrote beside it)", what)
	case block.Type != want:
		return nil, fmt.Errorf("%s holds a PEM %q block, want %q (an unencrypted Ed25519 key as `featuredp keygen` or `openssl genpkey -algorithm ed25519` writes)", what, block.Type, want)
	case len(block.Headers) > 0:
		return nil, fmt.Errorf("%s has PEM headers (an encrypted key?): want an unencrypted Ed25519 key as `featuredp keygen` writes", what)
	}
	return block.Bytes, nil
}

// ParsePrivateKey reads an Ed25519 private key from a PEM "PRIVATE KEY"
// block (PKCS #8), the form MarshalPrivateKey and `featuredp keygen` write.
// A public key, a key of another type (RSA, ECDSA) or malformed bytes are
// errors that say so without quoting the file.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	der, err := pemBlock(b, privateKeyBlock, "release: the private key file")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		// x509's error is not wrapped: it could quote the key's bytes.
		return nil, errors.New("release: the private key file's PRIVATE KEY block is not a valid PKCS #8 key (damaged?)")
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("release: the private key file holds an %s key: model files are signed with Ed25519 keys (`featuredp keygen` makes one)", keyType(k))
	}
	return priv, nil
}

// ParsePublicKey reads an Ed25519 public key from a PEM "PUBLIC KEY" block
// (PKIX), the form MarshalPublicKey and `featuredp keygen` write.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	der, err := pemBlock(b, publicKeyBlock, "release: the public key file")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("release: the public key file's PUBLIC KEY block is not a valid PKIX key (%v)", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("release: the public key file holds an %s key: model files are signed with Ed25519 keys", keyType(k))
	}
	return pub, nil
}

// keyType names the type of a parsed key without its value.
func keyType(k any) string {
	switch k.(type) {
	case *rsa.PrivateKey, *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PrivateKey, *ecdsa.PublicKey:
		return "ECDSA"
	case *ecdh.PrivateKey, *ecdh.PublicKey:
		return "X25519 (ECDH)"
	}
	return fmt.Sprintf("%T", k)
}

// LoadPrivateKey reads the private key file at path (ParsePrivateKey). On
// Unix it refuses a file that its group or others may read or write, as
// ssh does: chmod 600 it (and consider the key exposed).
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	priv, mode, err := loadKey(path, ParsePrivateKey)
	if err == nil && runtime.GOOS != "windows" && mode.Perm()&0o077 != 0 {
		return nil, fmt.Errorf("release: the private key file %s has mode %v: others may read it; chmod 600 %s (and, if others did read it, make a new key)", path, mode.Perm(), path)
	}
	return priv, err
}

// LoadPublicKey reads the public key file at path (ParsePublicKey).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	pub, _, err := loadKey(path, ParsePublicKey)
	return pub, err
}

// loadKey reads the key file at path with parse and returns its mode.
func loadKey[K any](path string, parse func([]byte) (K, error)) (K, fs.FileMode, error) {
	var none K
	b, mode, err := readKeyFile(path)
	if err != nil {
		return none, 0, err
	}
	k, err := parse(b)
	if err != nil {
		return none, 0, fmt.Errorf("%w (file %s)", err, path)
	}
	return k, mode, nil
}

// readKeyFile reads the regular file at path, at most maxKeyFileBytes, and
// returns its mode.
func readKeyFile(path string) ([]byte, fs.FileMode, error) {
	fh, st, err := openRegular(path, "the key file")
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxKeyFileBytes+1))
	switch {
	case err != nil:
		return nil, 0, fmt.Errorf("release: reading the key file %s: %w", path, err)
	case len(b) > maxKeyFileBytes:
		return nil, 0, fmt.Errorf("release: the key file %s is larger than %d bytes: not a key file", path, maxKeyFileBytes)
	}
	return b, st.Mode(), nil
}

// GenerateKeyFiles makes a new Ed25519 key pair from crypto/rand and writes
// it to name+".key" (the private key, PEM PKCS #8, mode 0600) and
// name+".pub" (the public key, PEM PKIX, mode 0644), returning the public
// key. Without overwrite it refuses, before writing anything, when either
// file exists (the error wraps fs.ErrExist), a symbolic link included,
// dangling or not: a link is never followed onto another file, and a
// failure leaves neither new file behind. With overwrite an existing file
// or link is replaced by the new file (the file a link pointed to is left
// as it was): both are written to temporary files beside their paths,
// then moved into place, the public key first, so that a failure leaves
// the old private key as it was (if only the private key's move fails,
// name+".pub" is the new key's: make the pair again).
func GenerateKeyFiles(name string, overwrite bool) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("release: generating the key: %w", err)
	}
	privPEM, err := MarshalPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pubPEM, err := MarshalPublicKey(pub)
	if err != nil {
		return nil, err
	}
	files := []keyFile{{name + ".key", privPEM, 0o600}, {name + ".pub", pubPEM, 0o644}}
	if overwrite {
		return pub, replaceKeyFiles(files)
	}
	for _, f := range files {
		if _, err := os.Lstat(f.path); err == nil {
			return nil, fmt.Errorf("release: %s exists: %w: choose another name or allow overwriting it", f.path, fs.ErrExist)
		}
	}
	for i, f := range files {
		if err := createKeyFile(f); err != nil {
			if i > 0 {
				os.Remove(files[0].path)
			}
			return nil, err
		}
	}
	return pub, nil
}

// keyFile is a key file to write: its path, content and mode.
type keyFile struct {
	path string
	b    []byte
	mode fs.FileMode
}

// createKeyFile writes f to a new file created exclusively (O_EXCL: an
// existing file or symbolic link there is an error wrapping fs.ErrExist,
// never followed).
func createKeyFile(f keyFile) error {
	fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("release: %s exists: %w: choose another name or allow overwriting it", f.path, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("release: writing the key file: %w", err)
	}
	if err := finishKeyFile(fh, f.b, f.mode); err != nil {
		os.Remove(f.path)
		return err
	}
	return nil
}

// replaceKeyFiles writes each of files (the private key first) to a
// temporary file beside its path, then renames them over their paths in
// reverse order, the private key last: a failure to write leaves every
// old file as it was, and the private key, which cannot be made again, is
// replaced only once the public key is. A rename replaces a symbolic link
// rather than the file it names.
func replaceKeyFiles(files []keyFile) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // after a successful rename, nothing is there
		}
	}()
	for _, f := range files {
		fh, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp*")
		if err != nil {
			return fmt.Errorf("release: writing the key file: %w", err)
		}
		tmps = append(tmps, fh.Name())
		if err := finishKeyFile(fh, f.b, f.mode); err != nil {
			return err
		}
	}
	for i := len(files) - 1; i >= 0; i-- {
		if err := os.Rename(tmps[i], files[i].path); err != nil {
			return fmt.Errorf("release: writing the key file: %w", err)
		}
	}
	return nil
}

// finishKeyFile sets fh's mode to perm (whatever the umask: a private key
// is never more open than 0600), writes b, syncs and closes it.
func finishKeyFile(fh *os.File, b []byte, perm fs.FileMode) error {
	err := fh.Chmod(perm)
	if err == nil {
		_, err = fh.Write(b)
	}
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("release: writing the key file %s: %w", fh.Name(), err)
	}
	return nil
}
