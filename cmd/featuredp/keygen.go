package main

// The keygen command: `featuredp keygen --out NAME` makes the Ed25519 key
// pair that signs model files (`train --sign-key`) and verifies them
// (`certificate` and `predict --verify-key`); docs/release.md.

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/featuredp/featuredp/release"
)

func init() {
	register("keygen", "make an Ed25519 key pair that signs model files", runKeygen)
}

const keygenUsage = `usage: featuredp keygen --out NAME [--force]

Makes an Ed25519 key pair from the operating system's CSPRNG and writes
NAME.key, the private key (PEM, PKCS #8, unencrypted, mode 0600: keep it
secret; featuredp train --sign-key NAME.key signs a model file with it), and
NAME.pub, the public key (PEM, PKIX: publish it; featuredp certificate and
predict --verify-key NAME.pub check that a model file was signed with its
private key). It prints the key's fingerprint (sha256: and 32 hex digits),
by which the certificate output names the signer of a file. Neither file is
written when either exists, a symbolic link included, unless --force, which
replaces them (a link itself, never the file it names): a replaced private
key is lost, and files signed with it no longer verify against the new
public key. See docs/release.md.

flags:
`

func runKeygen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp keygen", flag.ContinueOnError)
	out := fs.String("out", "", "write the key pair to `NAME`.key and NAME.pub (required)")
	force := fs.Bool("force", false, "replace an existing NAME.key and NAME.pub")
	if code, done := parseFlags(fs, args, keygenUsage, stdout, stderr); done {
		return code
	}
	pub, err := keygen(fs.Args(), *out, *force)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp keygen: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s.key (private key: keep it secret) and %s.pub (public key: publish it)\nkey %s\n"+
		"sign:   featuredp train ... --out MODEL.json --sign-key %s.key\nverify: featuredp certificate MODEL.json --verify-key %s.pub\n",
		*out, *out, release.Fingerprint(pub), *out, *out)
	return 0
}

// keygen checks the arguments and writes the key pair NAME.key, NAME.pub.
func keygen(args []string, name string, force bool) (ed25519.PublicKey, error) {
	switch ext := filepath.Ext(name); {
	case len(args) > 0:
		return nil, fmt.Errorf("unexpected argument %q (give the name with --out NAME)", args[0])
	case name == "":
		return nil, errors.New("--out NAME is required: keygen writes NAME.key and NAME.pub")
	case strings.HasSuffix(name, "/") || strings.HasSuffix(name, string(filepath.Separator)) || filepath.Base(name) == ".":
		return nil, fmt.Errorf("--out %s names a directory: give a name in it, such as %s", name, filepath.Join(name, "release"))
	case ext == ".key" || ext == ".pub":
		return nil, fmt.Errorf("--out %s: give the name without %s (keygen writes %s.key and %s.pub)", name, ext, strings.TrimSuffix(name, ext), strings.TrimSuffix(name, ext))
	}
	if st, err := os.Stat(filepath.Dir(name)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--out %s: the directory %s does not exist: create it first", name, filepath.Dir(name))
	}
	pub, err := release.GenerateKeyFiles(name, force)
	if errors.Is(err, fs.ErrExist) {
		for _, p := range []string{name + ".key", name + ".pub"} {
			if _, serr := os.Lstat(p); serr == nil {
				return nil, fmt.Errorf("--out %s: %s exists: choose another name, or add --force to replace the pair (the old private key is then lost)", name, p)
			}
		}
	}
	return pub, err
}

// checkKeyFlag refuses a key flag (--verify-key, --sign-key) given on the
// command line with an empty value: a script's unset variable
// (--verify-key "$KEY") must not silently skip the verification.
func checkKeyFlag(fs *flag.FlagSet, name string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name && f.Value.String() == "" {
			err = fmt.Errorf("--%s is empty: give the key file (or drop the flag)", name)
		}
	})
	return err
}

// loadVerifyKey reads the public key file of --verify-key ("" reads none).
func loadVerifyKey(path string) (ed25519.PublicKey, error) {
	if path == "" {
		return nil, nil
	}
	pub, err := release.LoadPublicKey(path)
	if err != nil {
		return nil, fmt.Errorf("--verify-key: %w", err)
	}
	return pub, nil
}

// verifyModel verifies the model file f against pub, the public key of
// --verify-key keyPath (no key: nothing to verify).
func verifyModel(f *release.File, pub ed25519.PublicKey, keyPath string) error {
	if pub == nil {
		return nil
	}
	if err := f.Verify(pub); err != nil {
		return fmt.Errorf("--verify-key %s: %w", keyPath, err)
	}
	return nil
}

// signatureNote says whether the model file f is signed and by which key;
// it says "verified" only when verified is set (f.Verify accepted the key
// of --verify-key).
func signatureNote(f *release.File, verified bool) string {
	switch {
	case f.Signature == nil:
		return "**Signature:** none — the file is not signed, so who wrote it cannot be checked (`featuredp train --sign-key` signs a model file).\n"
	case !verified:
		return fmt.Sprintf("**Signature:** signed by key %s, **not verified** — anyone can sign with a key of their own: "+
			"give the publisher's public key with --verify-key KEY.pub to check it.\n", f.Signer())
	}
	return fmt.Sprintf("**Signature:** verified — signed by key %s, the key given with --verify-key.\n", f.Signer())
}
