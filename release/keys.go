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

	"github.com/featuredp/featuredp/internal/safefile"
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
// Unix it refuses, as ssh does, a file that its group or others may read
// or write (chmod 600 it, and consider the key exposed), and a file that
// another user owns (privateKeySafe).
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	priv, st, err := loadKey(path, ParsePrivateKey)
	if err != nil {
		return nil, err
	}
	if err := privateKeySafe(path, st, os.Geteuid()); err != nil {
		return nil, err
	}
	return priv, nil
}

// privateKeySafe checks the private key file at path, of FileInfo st
// (taken from the open file), for the user uid (os.Geteuid, injected by
// the tests). Outside Windows its mode must give its group and others no
// access, and on Unix its owner must be uid: the owner of a key file can
// read it and replace it at will, so a key that another account owns is
// not yours alone — that account could sign as you, or swap in its own
// key for you to sign with. ssh refuses an identity file that others may
// read, and sshd (StrictModes) one that another user owns; LoadPrivateKey
// refuses both, even for root, rather than warn: a signature made with a
// key another account controls proves nothing, and a warning scrolls by
// in a script's log.
func privateKeySafe(path string, st fs.FileInfo, uid int) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("release: the private key file %s has mode %v: others may read it; chmod 600 %s (and, if others did read it, make a new key)", path, m, path)
	}
	if owner, ok := fileOwner(st); ok && owner != uid {
		return fmt.Errorf("release: the private key file %s belongs to user %d, not to you (user %d): its owner can read and replace the key, "+
			"so it is not yours alone; make a key of your own with featuredp keygen (or, if that user is you under another name, "+
			"copy the file into one you own: cp %s NEW.key && chmod 600 NEW.key)", path, owner, uid, path)
	}
	return nil
}

// LoadPublicKey reads the public key file at path (ParsePublicKey).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	pub, _, err := loadKey(path, ParsePublicKey)
	return pub, err
}

// loadKey reads the key file at path with parse and returns the file's
// FileInfo (of the file opened, not of the path).
func loadKey[K any](path string, parse func([]byte) (K, error)) (K, fs.FileInfo, error) {
	var none K
	b, st, err := readKeyFile(path)
	if err != nil {
		return none, nil, err
	}
	k, err := parse(b)
	if err != nil {
		return none, nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return k, st, nil
}

// readKeyFile reads the regular file at path, at most maxKeyFileBytes, and
// returns its FileInfo.
func readKeyFile(path string) ([]byte, fs.FileInfo, error) {
	fh, st, err := openRegular(path, "the key file")
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxKeyFileBytes+1))
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("release: reading the key file %s: %w", path, err)
	case len(b) > maxKeyFileBytes:
		return nil, nil, fmt.Errorf("release: the key file %s is larger than %d bytes: not a key file", path, maxKeyFileBytes)
	}
	return b, st, nil
}

// GenerateKeyFiles makes a new Ed25519 key pair from crypto/rand and writes
// it to name+".key" (the private key, PEM PKCS #8, mode 0600) and
// name+".pub" (the public key, PEM PKIX, mode 0644), returning the public
// key. Both are written to temporary files beside their paths, then moved
// into place, the public key first, so that no reader sees half a key and a
// failure leaves no new file behind. Without overwrite it refuses, before
// writing anything, when either file exists (the error wraps fs.ErrExist),
// a symbolic link included, dangling or not; the move is then a hard link,
// which fails on a file that appeared meanwhile, so a link is never
// followed onto another file. With overwrite an existing file or link is
// replaced by the new file (the file a link pointed to is left as it was),
// the private key last, so that a failure leaves the old private key as it
// was (if only the private key's move fails, name+".pub" is the new key's:
// make the pair again).
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
	if !overwrite {
		for _, f := range files {
			if _, err := os.Lstat(f.path); err == nil {
				return nil, keyExists(f.path)
			}
		}
	}
	return pub, writeKeyFiles(files, overwrite)
}

// keyFile is a key file to write: its path, content and mode.
type keyFile struct {
	path string
	b    []byte
	mode fs.FileMode
}

// keyExists is the refusal to replace the key file at path.
func keyExists(path string) error {
	return fmt.Errorf("release: %s exists: %w: choose another name or allow overwriting it", path, fs.ErrExist)
}

// writeKeyFiles writes each of files (the private key first) to a
// temporary file beside its path, then moves them to their paths in
// reverse order, the private key last (safefile.Move: a rename with
// overwrite, which replaces a symbolic link rather than the file it names;
// else a hard link, which fails on an existing path): a failure to write
// leaves every old file as it was, and the private key, which cannot be
// made again, is replaced only once the public key is. Without overwrite,
// a public key already moved is removed when the private key's move fails.
func writeKeyFiles(files []keyFile, overwrite bool) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // after a rename nothing is there; after a link, the temporary name
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
		err := safefile.Move(tmps[i], files[i].path, overwrite)
		if err == nil {
			continue
		}
		if !overwrite && i < len(files)-1 {
			os.Remove(files[len(files)-1].path) // the public key this call made
		}
		if errors.Is(err, fs.ErrExist) {
			return keyExists(files[i].path)
		}
		return fmt.Errorf("release: writing the key file: %w", err)
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
