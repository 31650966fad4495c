package release_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// A publisher signs a model file with its private key; a user who got the
// public key from the publisher verifies the file with it. A file signed
// by another key, or unsigned, is refused by Verify; a file changed after
// Sign is refused by Write. The keys here come from fixed seeds so that
// the output is stable: real keys come from `featuredp keygen`
// (release.GenerateKeyFiles), drawn from crypto/rand.
func ExampleFile_Sign() {
	publisher := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	stranger := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, ed25519.SeedSize))
	age, y := make([]float64, 200), make([]string, 200)
	for i := range age {
		age[i] = 20 + float64(i%60)
		y[i] = map[bool]string{true: "yes", false: "no"}[age[i] >= 50]
	}
	f, err := dpnb.Train(context.Background(),
		dataframe.New(series.New(age, series.Float, "age"), series.New(y, series.String, "y")),
		data.Schema{Task: data.Classification, Columns: []data.Column{
			{Name: "age", Role: data.Sensitive, Kind: data.Continuous},
			{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		}}, dpnb.TrainOptions{Epsilon: 4, Encode: data.EncodeOptions{Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
			SampleRate: 0.1, Epochs: 2, Rows: 200, Reproducible: true, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := f.Sign(publisher); err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		fmt.Println(err)
		return
	}
	g, err := release.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("version", g.Version, "signed by", g.Signer())
	fmt.Println("verified:", g.Verify(publisher.Public().(ed25519.PublicKey)) == nil)
	fmt.Println(g.Verify(stranger.Public().(ed25519.PublicKey)))
	g.Certificate.Notes = append(g.Certificate.Notes, "audited")
	err = g.Write(&bytes.Buffer{})
	fmt.Println("edited after signing:", errors.Is(err, release.ErrSignature))
	// Output:
	// version 2 signed by sha256:34750f98bd59fcfc946da45aaabe933b
	// verified: true
	// release: the model file is signed by key sha256:34750f98bd59fcfc946da45aaabe933b, not by the given key sha256:6a3803d5f059902a1c6dafbc9ba47292: it does not come from that key's holder (get the file or the public key from the publisher again): model file signature invalid
	// edited after signing: true
}
