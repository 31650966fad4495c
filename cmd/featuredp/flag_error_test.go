package main

import (
	"strings"
	"testing"
)

// A misspelt flag is an error (exit 2) that names the nearest flag of the
// command, when there is one within two edits or as a prefix, and where
// the flags are listed; every command's parser goes through flagError.
func TestMisspeltFlagSuggests(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"epsilon", "--sample-rat", "0.1"}, `--sample-rat (did you mean "--sample-rate"?); 'featuredp epsilon -h' lists the flags`},
		{[]string{"epsilon", "-q", "0.1"}, `--q; 'featuredp epsilon -h' lists the flags`},
		{[]string{"train", "--epsilom", "1"}, `(did you mean "--epsilon"?); 'featuredp train -h'`},
		{[]string{"reproduce", "--profil", "full"}, `(did you mean "--profile"?); 'featuredp reproduce -h'`},
		{[]string{"report", "--csv-file", "x.csv"}, `(did you mean "--csv"?); 'featuredp report -h'`},
		{[]string{"audit", "--trails", "5"}, `(did you mean "--trials"?)`},
		{[]string{"data", "list", "--jsn"}, `(did you mean "--json"?); 'featuredp data list -h'`},
		{[]string{"merge", "--outt", "x"}, `(did you mean "--out"?)`},
		{[]string{"certificate", "--formt", "json", "m.json"}, `flag provided but not defined: --formt (did you mean "--format"?)`},
		{[]string{"predict", "--modl", "m.json"}, `(did you mean "--model"?)`},
		{[]string{"sigma", "--epsilon", "x"}, `invalid value "x" for flag --epsilon`},
	} {
		code, _, errs := runReproduceCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: code %d, stderr %q, want one line containing %q", tc.args, code, errs, tc.want)
		}
	}
}
