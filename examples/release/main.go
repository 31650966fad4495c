// Command release trains a private model on a CSV file of your own for
// release: feature DP protects smoker and income at ε = 2 while age and
// region are public, the randomness comes from the OS (a private release),
// and the model file with its certificate is signed with an Ed25519 key,
// saved, loaded back, verified with the public key and applied; a
// certificate edited after signing is refused (docs/release.md, "Signed
// model files"). Edit the schema and the public bounds to your columns.
//
//	go run ./examples/release results/patients.csv results/model.json
package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/release"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: release DATA.csv MODEL.json")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	check(err)
	df, err := data.ReadCSV(f, data.CSVOptions{StrictKinds: true})
	check(err)
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"north", "south", "east", "west"}},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "income", Role: data.Sensitive, Kind: data.Continuous},
		{Name: "readmitted", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	bounds := map[string]data.Range{"age": {Lo: 18, Hi: 90}, "income": {Lo: 0, Hi: 150000}} // public, not from the data

	pub, priv, err := throwawayKeys() // before training: a bad key fails first
	check(err)
	model, err := dpnb.Train(context.Background(), df, schema, dpnb.TrainOptions{
		Epsilon: 2, Encode: data.EncodeOptions{Scale: data.MinMax, Bounds: bounds}})
	check(err)
	fmt.Print(model.Certificate.Markdown())
	check(model.Sign(priv))              // the file Train returns is signed before Save
	check(model.Save(os.Args[2], false)) // never replaces an existing file

	loaded, err := release.Load(os.Args[2]) // verifies format, version, checksum and that the signature covers the content
	check(err)
	check(loaded.Verify(pub)) // signed by the holder of pub's private key: what a user checks
	fmt.Printf("\nsigned by %s, verified with its public key\n", loaded.Signer())
	check(refusesEditedCertificate(os.Args[2], pub))
	pred, err := loaded.Predict(df)
	check(err)
	right := 0
	for i, c := range pred.Class {
		if c == df.Col("readmitted").Elem(i).String() {
			right++
		}
	}
	// The prediction for a training row and the accuracy on the training
	// rows are functions of the private data that the certificate does not
	// cover: for your decision, not for publication.
	fmt.Printf("\nsaved %s; computed on the private rows without privacy (not for publication): P(%s) of the first row %.3f, accuracy on the file %.3f\n",
		os.Args[2], pred.Classes[1], pred.Probs[0][1], float64(right)/float64(len(pred.Class)))
}

// throwawayKeys makes an Ed25519 key pair with release.GenerateKeyFiles in
// a temporary directory, removed on return, and loads it back as a
// publisher and a user would. A real publisher makes the pair once
// (`featuredp keygen --out release`), keeps release.key secret and
// publishes release.pub; this program never writes a key elsewhere.
func throwawayKeys() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	dir, err := os.MkdirTemp("", "featuredp-release-keys-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "release")
	if _, err := release.GenerateKeyFiles(name, false); err != nil {
		return nil, nil, err
	}
	priv, err := release.LoadPrivateKey(name + ".key")
	if err != nil {
		return nil, nil, err
	}
	pub, err := release.LoadPublicKey(name + ".pub")
	return pub, priv, err
}

// refusesEditedCertificate loads the signed file at path, adds a note to
// its certificate (an edit no content check can catch) and shows that
// Verify refuses it: the signature no longer covers the content.
func refusesEditedCertificate(path string, pub ed25519.PublicKey) error {
	f, err := release.Load(path)
	if err != nil {
		return err
	}
	f.Certificate.Notes = append(f.Certificate.Notes, "audited and approved")
	err = f.Verify(pub)
	if !errors.Is(err, release.ErrSignature) {
		return fmt.Errorf("an edited certificate was not refused: %v", err)
	}
	fmt.Println("edited certificate refused:", err)
	return nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}
