//go:build unix

package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// privateKeySafe refuses a private key file that another user owns (the
// user id injected: a file of another owner cannot be made without root),
// naming the file, both users and the fix, and accepts the same file for
// its owner; the mode check comes first.
func TestPrivateKeyOwner(t *testing.T) {
	name := filepath.Join(t.TempDir(), "k")
	if _, err := GenerateKeyFiles(name, false); err != nil {
		t.Fatal(err)
	}
	fh, st, err := openRegular(name+".key", "the key file")
	if err != nil {
		t.Fatal(err)
	}
	fh.Close()
	owner, ok := fileOwner(st)
	if !ok || owner != os.Geteuid() {
		t.Fatalf("fileOwner = %d, %v; want %d (this process made the file)", owner, ok, os.Geteuid())
	}
	if err := privateKeySafe(name+".key", st, owner); err != nil {
		t.Errorf("the owner's own 0600 key: %v", err)
	}
	other := owner + 1
	err = privateKeySafe(name+".key", st, other)
	for _, want := range []string{name + ".key belongs to user", "not to you", "featuredp keygen", "chmod 600"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a key of another user: %v, want %q", err, want)
		}
	}
	if _, err := LoadPrivateKey(name + ".key"); err != nil {
		t.Errorf("LoadPrivateKey of one's own key: %v", err)
	}
}
