package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
)

// trainFixture writes a small patients table.
func trainFixture(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("age,region,smoker,income,readmitted\n")
	for i := range 400 {
		smoker := []string{"no", "yes"}[i%3/2]
		y := "no"
		if smoker == "yes" || i%7 == 0 {
			y = "yes"
		}
		b.WriteString(strings.Join([]string{strconv.Itoa(20 + i%60), []string{"north", "south"}[i%2], smoker, strconv.Itoa(1000 * (i % 90)), y}, ",") + "\n")
	}
	p := filepath.Join(t.TempDir(), "patients.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// missingFixture is the table of csv with one income cell empty.
func missingFixture(t *testing.T, csv string) string {
	t.Helper()
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	cells := strings.Split(lines[5], ",")
	cells[3] = ""
	lines[5] = strings.Join(cells, ",")
	p := filepath.Join(t.TempDir(), "missing.csv")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func trainArgs(csv, out string, extra ...string) []string {
	return append([]string{"train", "--csv", csv, "--label", "readmitted", "--sensitive", "smoker,income", "--public", "age,region",
		"--epsilon", "2", "--bounds", "age=18:90,income=0:100000", "--levels", "smoker=no|yes,region=north|south,readmitted=no|yes",
		"--sample-rate", "0.05", "--epochs", "2", "--out", out}, extra...)
}

// `featuredp train --reproducible --seed S` twice gives byte-identical
// model files saying "not a private release"; the default (secure) run
// gives another model; predict and certificate read the file.
func TestTrainCLI(t *testing.T) {
	csv := trainFixture(t)
	dir := t.TempDir()
	a, b, s := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "s.json")
	for _, out := range []string{a, b} {
		if code, stdout, errs := runReproduceCLI(trainArgs(csv, out, "--reproducible", "--seed", "3")...); code != 0 || !strings.Contains(stdout, "NOT A PRIVATE RELEASE") {
			t.Fatalf("train: code %d\n%s\n%s", code, stdout, errs)
		}
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Fatal("two reproducible trainings with one seed wrote different files")
	}
	if code, stdout, errs := runReproduceCLI(trainArgs(csv, s)...); code != 0 || strings.Contains(stdout, "NOT A PRIVATE") || !strings.Contains(stdout, "| private release | true |") {
		t.Fatalf("secure train: code %d\n%s\n%s", code, stdout, errs)
	}
	if bs, _ := os.ReadFile(s); bytes.Equal(bs, ba) {
		t.Error("the secure run wrote the reproducible model")
	}
	if code, out, _ := runReproduceCLI("predict", "--model", a, "--csv", csv); code != 0 || strings.Count(out, "\n") != 401 {
		t.Errorf("predict: code %d, %d lines", code, strings.Count(out, "\n"))
	}
	// DP-SGD scales its update by q·--rows, a public count, and records it.
	dp := filepath.Join(dir, "dp.json")
	if code, stdout, errs := runReproduceCLI(trainArgs(csv, dp, "--notion", "dp", "--rows", "400")...); code != 0 || !strings.Contains(stdout, "adding or removing any one record") ||
		!strings.Contains(stdout, "update scaled by q·400 (a public row count)") {
		t.Fatalf("train --notion dp --rows 400: code %d\n%s\n%s", code, stdout, errs)
	}
	if b, _ := os.ReadFile(dp); !bytes.Contains(b, []byte(`"rows": 400`)) {
		t.Error("the DP certificate does not record its public row count")
	}
}

// Bad flags and unsafe inputs are errors (exit 2) naming the fix.
func TestTrainCLIErrors(t *testing.T) {
	csv := trainFixture(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "keep.json")
	os.WriteFile(existing, []byte("user file"), 0o644)
	out := filepath.Join(dir, "m.json")
	dangling := filepath.Join(dir, "link.json")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "in.fifo")
	mkfifo(t, fifo)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no role for a column", []string{"train", "--csv", csv, "--label", "readmitted", "--sensitive", "smoker,income", "--epsilon", "1", "--out", out}, `"age", "region" have no role`},
		{"existing out", trainArgs(csv, existing), "exists: choose another file or add --force"},
		{"out is a directory", trainArgs(csv, dir, "--force"), "is a directory: give a file path"},
		{"out is the csv", trainArgs(csv, csv, "--force"), "is the --csv file"},
		{"dp without rows", trainArgs(csv, out, "--notion", "dp"), "--rows N"},
		{"levels of an ignored column", []string{"train", "--csv", csv, "--label", "readmitted", "--sensitive", "smoker", "--public", "age,region",
			"--ignore", "income", "--epsilon", "2", "--bounds", "age=18:90", "--levels", "smoker=no|yes,region=north|south,readmitted=no|yes,income=a|b",
			"--out", out}, `column "income" is --ignore'd but has --levels or --bounds`},
		{"out is a dangling link", trainArgs(csv, dangling), "exists: choose another file or add --force"},
		{"out in a missing directory", trainArgs(csv, filepath.Join(dir, "nodir", "m.json")), "does not exist: create it first"},
		{"csv is a named pipe", trainArgs(fifo, out), "not a regular file"},
		{"no bounds", []string{"train", "--csv", csv, "--label", "readmitted", "--sensitive", "smoker,income", "--public", "age,region", "--epsilon", "1",
			"--levels", "smoker=no|yes,region=north|south,readmitted=no|yes", "--out", out}, `"age"`},
		{"epsilon 0", trainArgs(csv, out, "--epsilon", "0"), "--epsilon 0"},
		{"two roles", trainArgs(csv, out, "--public", "smoker"), `"smoker" is in both --sensitive and --public`},
		{"unknown column", trainArgs(csv, out, "--ignore", "agee"), `--ignore: no column "agee"`},
		{"seed without reproducible", trainArgs(csv, out, "--seed", "4"), "--seed needs --reproducible"},
		{"seed 0 without reproducible", trainArgs(csv, out, "--seed", "0"), "--seed needs --reproducible"},
		{"hidden 0", trainArgs(csv, out, "--model", "mlp", "--hidden", "0"), "--hidden 0: want at least 1 hidden unit"},
		{"hidden of a default model", trainArgs(csv, out, "--hidden", "5"), "--hidden sets the hidden units of an mlp, not of a default model: add --model mlp"},
		{"hidden of a logistic model", trainArgs(csv, out, "--model", "logistic", "--hidden", "5"), "not of a logistic model"},
		{"unreachable ε", trainArgs(csv, out, "--epsilon", "1e-300"), "calibrating the noise for ε = 1e-300 (--epsilon, --delta, --sample-rate, --epochs)"},
		{"mlp too wide", trainArgs(csv, out, "--model", "mlp", "--hidden", "1000000000"), "(lower --hidden)"},
		{"regression lr", []string{"train", "--csv", csv, "--label", "income", "--sensitive", "smoker", "--public", "age,region", "--ignore", "readmitted",
			"--bounds", "age=18:90,income=0:100000", "--levels", "smoker=no|yes,region=north|south", "--epsilon", "2", "--lr", "0.9", "--out", out},
			"--lr 0.9: a linear regression under feature DP needs --lr < 1/B"},
		{"bad notion", trainArgs(csv, out, "--notion", "corr"), `--notion "corr"`},
		{"rate", trainArgs(csv, out, "--sample-rate", "2"), "--sample-rate 2"},
		{"too many steps", trainArgs(csv, out, "--epochs", "1e30"), "= 2e+31 steps: at most 100000000"},
		{"bad orders", trainArgs(csv, out, "--orders", "opacuss"), "--orders"},
		{"small ε on Opacus' grid", trainArgs(csv, out, "--epsilon", "0.05", "--orders", "opacus"), "largest order 63"},
		{"levels and bounds", trainArgs(csv, out, "--levels", "age=1|2"), `"age" has both --levels and --bounds`},
		{"gzip", []string{"train", "--csv", gzFile(t), "--label", "y", "--sensitive", "a", "--epsilon", "1", "--out", out}, "gzip-compressed"},
		{"ball of a public column", trainArgs(csv, out, "--ball", "age=0.5"), `Ball names "age", which is not a protected feature`},
		{"ball out of range", trainArgs(csv, out, "--ball", "income=1.5"), "income=1.5"},
		// Fixed in review M: each of these trained, or named no fix.
		{"delta at least 1/n", trainArgs(csv, out, "--delta", "0.01"), "--delta 0.01 is at least 1/n = 0.0025 for the training data's 400 rows"},
		{"delta at least 1/--rows", trainArgs(csv, out, "--notion", "dp", "--rows", "1000000"), "--delta 1e-05 is at least 1/n = 1e-06 for --rows 1000000"},
		{"sample rate below 1/n", trainArgs(csv, out, "--sample-rate", "0.001"), "--sample-rate·n = 0.001·400 = 0.4 < 1"},
		{"label without levels or bounds", []string{"train", "--csv", csv, "--label", "readmitted", "--sensitive", "smoker,income", "--public", "age,region",
			"--epsilon", "2", "--bounds", "age=18:90,income=0:100000", "--levels", "smoker=no|yes,region=north|south", "--out", out},
			"--label \"readmitted\" has neither --levels nor --bounds: give its public classes, --levels readmitted=A|B|..."},
		{"column in another case", trainArgs(csv, out, "--ignore", "Age"), `no column "Age" in`},
		{"column in another case: hint", trainArgs(csv, out, "--ignore", "Age"), `(did you mean "age"?)`},
		{"missing value", trainArgs(missingFixture(t, csv), out), "featuredp reads no missing value: drop those rows or fill them"},
	} {
		code, _, errs := runReproduceCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: code %d, stderr %q, want %q", tc.name, code, errs, tc.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "user file" {
		t.Error("train replaced a user file")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed train left a model file")
	}
}

// gzFile writes a gzip-compressed CSV.
func gzFile(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("a,y\n1,0\n"))
	zw.Close()
	p := filepath.Join(t.TempDir(), "x.csv.gz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A label without --levels is a regression target: the linear model.
func TestTrainCLIRegression(t *testing.T) {
	csv := trainFixture(t)
	dir := t.TempDir()
	// A regression label takes public --bounds: trained on [0, 1], predicted
	// in its units; without them, an error names the flag.
	reg := []string{"train", "--csv", csv, "--label", "income", "--sensitive", "smoker", "--public", "age,region", "--ignore", "readmitted",
		"--epsilon", "2", "--levels", "smoker=no|yes,region=north|south", "--reproducible"}
	regOut := filepath.Join(dir, "reg.json")
	if code, _, errs := runReproduceCLI(append(reg, "--bounds", "age=18:90", "--out", regOut)...); code != 2 || !strings.Contains(errs, "--bounds income=LO:HI") {
		t.Errorf("regression without label bounds: code %d, %s", code, errs)
	}
	if code, stdout, errs := runReproduceCLI(append(reg, "--bounds", "age=18:90,income=0:100000", "--out", regOut)...); code != 0 || !strings.Contains(stdout, "| training | linear;") {
		t.Fatalf("regression: code %d\n%s\n%s", code, stdout, errs)
	}
	code, out, errs := runReproduceCLI("predict", "--model", regOut, "--csv", csv)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 401 || lines[0] != "prediction" {
		t.Fatalf("predict regression: code %d, %d lines, %s", code, len(lines), errs)
	}
	// In the label's units, not the scaled [0, 1] of training: the model
	// is noisy at ε = 2 on 400 rows, but its outputs are of the range's
	// size (scaled ones would be about 1).
	sum := 0.0
	for _, l := range lines[1:] {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatalf("prediction %q: %v", l, err)
		}
		sum += math.Abs(v) / 400
	}
	if !(sum > 100 && sum < 1e6) {
		t.Errorf("mean |prediction| %v: want the label's units (public range [0, 100000]), not diverged", sum)
	}
}

// --orders picks the order grid of the calibration and the ledger: the
// default (dp_accounting's, to 1024) reaches ε = 0.05, which Opacus' grid
// cannot; the certificate states the grid's size and the order used.
func TestTrainCLIOrders(t *testing.T) {
	csv := trainFixture(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"default grid, small ε", []string{"--epsilon", "0.05"}, "156 orders"},
		{"Opacus' grid", []string{"--orders", "opacus"}, "151 orders"},
		{"a list", []string{"--orders", "2,4,8,16,32"}, "5 orders"},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
		args := append(trainArgs(csv, out, "--reproducible", "--seed", "1"), tc.args...)
		if code, stdout, errs := runReproduceCLI(args...); code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: code %d, want %q in\n%s\n%s", tc.name, code, tc.want, stdout, errs)
		}
	}
}

// train reads the header and the rows from one opened file: readHeader
// leaves the file at its start, so TrainCSV reads the same bytes the
// schema was made from (the old code opened --csv twice, and a file
// swapped in between was trained on under the first one's schema).
func TestReadHeaderRewinds(t *testing.T) {
	csv := trainFixture(t)
	want, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := openInput("--csv", csv)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	h, err := readHeader(fh, csv, data.CSVOptions{})
	if err != nil || len(h) == 0 {
		t.Fatalf("header %v, %v", h, err)
	}
	got, err := io.ReadAll(fh)
	if err != nil || string(got) != string(want) {
		t.Errorf("after the header the file reads %d bytes (%v), want all %d", len(got), err, len(want))
	}
}
