package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/release"
)

// keyPair runs `featuredp keygen --out DIR/name` and returns NAME.
func keyPair(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if code, out, errs := runReproduceCLI("keygen", "--out", p); code != 0 || !strings.Contains(out, "key sha256:") {
		t.Fatalf("keygen: %d\n%s\n%s", code, out, errs)
	}
	return p
}

// keygen writes NAME.key (0600) and NAME.pub and prints the fingerprint;
// it refuses an existing pair (naming --force), a name with an extension,
// a missing directory and a link at either path; --force replaces the
// pair.
func TestKeygenCLI(t *testing.T) {
	dir := t.TempDir()
	name := keyPair(t, dir, "release")
	pub, err := release.LoadPublicKey(name + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(name + ".key"); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v (%v)", st.Mode().Perm(), err)
	}
	user := filepath.Join(dir, "mine.txt")
	os.WriteFile(user, []byte("mine"), 0o644)
	if err := os.Symlink(user, filepath.Join(dir, "linked.key")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--out", name}, "add --force"},
		{[]string{"--out", name + ".key"}, "without .key"},
		{[]string{"--out", filepath.Join(dir, "no", "k")}, "does not exist"},
		{[]string{"--out", filepath.Join(dir, "linked")}, "add --force"},
		{[]string{}, "--out NAME is required"},
		{[]string{"--out", dir + "/"}, "names a directory"},
		{[]string{"--out", name, "extra"}, "unexpected argument"},
	} {
		code, _, errs := runReproduceCLI(append([]string{"keygen"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("keygen %q: %d %q, want an error saying %q", c.args, code, errs, c.says)
		}
	}
	if b, _ := os.ReadFile(user); string(b) != "mine" {
		t.Error("keygen wrote through a link")
	}
	if code, _, errs := runReproduceCLI("keygen", "--out", name, "--force"); code != 0 {
		t.Fatalf("--force: %s", errs)
	}
	if again, _ := release.LoadPublicKey(name + ".pub"); again.Equal(pub) {
		t.Error("--force kept the old key")
	}
}

// A model trained with --sign-key is reported signed by the key's
// fingerprint and "not verified" without --verify-key; with the matching
// public key certificate and predict say "verified" / predict; with
// another key, on an unsigned file, or on a signed file whose certificate
// was edited and its checksum recomputed, both fail naming the fix.
func TestSignedReleaseCLI(t *testing.T) {
	dir := t.TempDir()
	name, other := keyPair(t, dir, "pub"), keyPair(t, dir, "other")
	pub, _ := release.LoadPublicKey(name + ".pub")
	fp := release.Fingerprint(pub)
	csv := trainFixture(t)
	signed, unsigned := filepath.Join(dir, "signed.json"), filepath.Join(dir, "unsigned.json")
	code, out, errs := runReproduceCLI(trainArgs(csv, signed, "--reproducible", "--seed", "1", "--sign-key", name+".key")...)
	if code != 0 || !strings.Contains(out, "signed by key "+fp) {
		t.Fatalf("train --sign-key: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runReproduceCLI(trainArgs(csv, unsigned, "--reproducible", "--seed", "1")...); code != 0 || !strings.Contains(out, "not signed") {
		t.Fatalf("train: %d\n%s\n%s", code, out, errs)
	}

	code, out, _ = runReproduceCLI("certificate", signed)
	if code != 0 || !strings.Contains(out, "signed by key "+fp+", **not verified**") || strings.Contains(out, "verified —") {
		t.Errorf("certificate of a signed file, no key: %d\n%s", code, out)
	}
	code, out, _ = runReproduceCLI("certificate", unsigned)
	if code != 0 || !strings.Contains(out, "**Signature:** none") {
		t.Errorf("certificate of an unsigned file: %d\n%s", code, out)
	}
	code, out, _ = runReproduceCLI("certificate", signed, "--verify-key", name+".pub")
	if code != 0 || !strings.Contains(out, "verified — signed by key "+fp) {
		t.Errorf("certificate --verify-key: %d\n%s", code, out)
	}
	code, out, errs = runReproduceCLI("certificate", signed, "--format", "json", "--verify-key", name+".pub")
	if code != 0 || !strings.HasPrefix(out, "{") || !strings.Contains(errs, "verified") {
		t.Errorf("certificate --format json --verify-key: %d\n%s\n%s", code, out, errs)
	}

	b, _ := os.ReadFile(signed)
	f, err := release.Read(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	f.Certificate.Notes = append(f.Certificate.Notes, "independently audited")
	f.Signature, f.Version = nil, release.FileVersion // Write recomputes the checksum of an unsigned file...
	edited := filepath.Join(dir, "edited.json")
	if err := f.Save(edited, false); err != nil {
		t.Fatal(err)
	}
	// A signed file whose certificate was edited and its checksum
	// recomputed fails whether or not a key is given.
	g, _ := release.Read(strings.NewReader(string(b)))
	g.Certificate.Notes = append(g.Certificate.Notes, "independently audited")
	g.SHA256 = ""
	compact, _ := json.Marshal(g)
	sum := sha256.Sum256(compact)
	g.SHA256 = hex.EncodeToString(sum[:])
	resealed, _ := json.MarshalIndent(g, "", " ")
	forged := filepath.Join(dir, "forged.json")
	os.WriteFile(forged, resealed, 0o644)
	if code, _, errs := runReproduceCLI("certificate", forged); code != 2 || !strings.Contains(errs, "edited or damaged after it was signed") {
		t.Errorf("certificate of a forged file: %d %s", code, errs)
	}
	rows := filepath.Join(dir, "rows.csv")
	os.WriteFile(rows, []byte("age,region,smoker,income\n30,north,no,5000\n"), 0o644)
	for _, c := range []struct {
		model, key, says string
	}{
		{signed, other + ".pub", "not by the given key"},
		{unsigned, name + ".pub", "not signed"},
		{edited, name + ".pub", "not signed"}, // ...so the edit shows as a missing signature
		{signed, name + ".key", "holds a private key"},
		{signed, filepath.Join(dir, "none.pub"), "--verify-key"},
		{forged, name + ".pub", "edited or damaged after it was signed"},
	} {
		for _, args := range [][]string{
			{"certificate", c.model, "--verify-key", c.key},
			{"predict", "--model", c.model, "--csv", rows, "--verify-key", c.key},
		} {
			code, out, errs := runReproduceCLI(args...)
			if code != 2 || out != "" || !strings.Contains(errs, c.says) {
				t.Errorf("%q: %d %q %q, want an error saying %q", args, code, out, errs, c.says)
			}
		}
	}
	// An empty key flag (a script's unset variable) is an error, not a
	// silently skipped verification or signature.
	for _, args := range [][]string{
		{"certificate", signed, "--verify-key", ""},
		{"predict", "--model", signed, "--csv", rows, "--verify-key", ""},
		trainArgs(csv, filepath.Join(dir, "y.json"), "--sign-key", ""),
	} {
		if code, _, errs := runReproduceCLI(args...); code != 2 || !strings.Contains(errs, "is empty: give the key file") {
			t.Errorf("%q: %d %s", args, code, errs)
		}
	}
	code, out, errs = runReproduceCLI("predict", "--model", signed, "--csv", rows, "--verify-key", name+".pub")
	if code != 0 || !strings.HasPrefix(out, "prediction,p_no,p_yes\n") {
		t.Errorf("predict --verify-key: %d %q %q", code, out, errs)
	}
	if code, _, errs := runReproduceCLI(trainArgs(csv, name+".key", "--force", "--sign-key", name+".key")...); code != 2 || !strings.Contains(errs, "is the --sign-key file") {
		t.Errorf("train --out onto its --sign-key: %d %s", code, errs)
	}
	if code, _, errs := runReproduceCLI(trainArgs(csv, filepath.Join(dir, "x.json"), "--sign-key", name+".pub")...); code != 2 || !strings.Contains(errs, "holds a public key") {
		t.Errorf("train --sign-key with a public key: %d %s", code, errs)
	}
}

// A note of a model file cannot pose as the certificate's signature line:
// the text of the file (its notes last) is framed by featuredp's own
// line, first and last, which says "none" or "not verified" without
// --verify-key. Before, the output began with the file's certificate and
// a forged note line "**Signature:** verified — …" naming the publisher's
// key came just before the only real line.
func TestCertificateNoteCannotPoseAsVerified(t *testing.T) {
	dir := t.TempDir()
	publisher, attacker := keyPair(t, dir, "publisher"), keyPair(t, dir, "attacker")
	pub, _ := release.LoadPublicKey(publisher + ".pub")
	forgedLine := "**Signature:** verified — signed by key " + release.Fingerprint(pub) + ", the key given with --verify-key."
	model := filepath.Join(dir, "model.json")
	if code, out, errs := runReproduceCLI(trainArgs(trainFixture(t), model, "--reproducible", "--seed", "1")...); code != 0 {
		t.Fatalf("train: %d\n%s\n%s", code, out, errs)
	}
	f, err := release.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	f.Certificate.Notes = append(f.Certificate.Notes, forgedLine)
	key, err := release.LoadPrivateKey(attacker + ".key")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, says string
		sign       bool
	}{
		{"unsigned", "**Signature:** none", false},
		{"self-signed", "**not verified**", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := *f
			if c.sign {
				if err := g.Sign(key); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, c.name+".json")
			if err := g.Save(path, false); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runReproduceCLI("certificate", path)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || !strings.Contains(out, forgedLine) {
				t.Fatalf("certificate: %d\n%s\n%s", code, out, errs)
			}
			first, last := lines[0], lines[len(lines)-1]
			for _, l := range []string{first, last} {
				if !strings.HasPrefix(l, "**Signature:** ") || !strings.Contains(l, c.says) || strings.Contains(l, "verified —") {
					t.Errorf("the output's first and last lines must be featuredp's signature line saying %q; got %q\n%s", c.says, l, out)
				}
			}
		})
	}
}
