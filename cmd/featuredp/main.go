// Command featuredp reproduces the figures of the feature-level DP papers and
// exposes the privacy accountants on the command line.
//
//	featuredp reproduce [all | PAPER | FIGURE-ID ...] [--out DIR] [--profile quick|full] ...
//	featuredp epsilon --sample-rate Q --noise-multiplier Z --steps T --delta D ...
//	featuredp sigma   --epsilon E --delta D --sample-rate Q --steps T ...
//	featuredp gaussian --epsilon E --delta D --sensitivity S
//
// Invalid input prints a one-line error on stderr and exits with code 2.
// Number flags are plain decimals, read as a CSV cell is
// (data.ParseNumber): no hex float, digits with underscores, Inf or NaN;
// integer flags take decimal digits only (017 is 17, 0x10 an error).
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/internal/suggest"
)

// command is one sub-command: it parses args and returns the exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled by the init functions of the files of this package.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: featuredp COMMAND [flags]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "run 'featuredp COMMAND -h' for a command's flags")
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "featuredp: unknown command %q (try 'featuredp help')\n", args[0])
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

// parseFlags parses args into fs (named "featuredp CMD"). On -h it prints
// usage and the flag defaults to stdout; on a bad flag, the error (with
// the help text's "--" spelling) to stderr. done reports that the command
// must return code.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		printDefaults(fs, stdout)
		return 0, true
	case err != nil:
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), flagError(fs, err))
		return 2, true
	}
	return 0, false
}

// flagError is a parse error of fs in the help text's "--" spelling; for
// an undefined flag it adds the nearest defined one (within two edits,
// else the longest defined name of 3+ letters it starts with: --csv-file,
// --csv) and where the flags are listed.
func flagError(fs *flag.FlagSet, err error) string {
	msg := flagDashes.Replace(err.Error())
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return msg
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	prefix := ""
	fs.VisitAll(func(f *flag.Flag) {
		names = append(names, f.Name)
		if len(f.Name) >= 3 && len(f.Name) > len(prefix) && strings.HasPrefix(name, f.Name) {
			prefix = f.Name
		}
	})
	hint := ""
	if best := cmp.Or(suggest.Nearest(name, names), prefix); best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", "--"+best)
	}
	return fmt.Sprintf("%s%s; '%s -h' lists the flags", msg, hint, fs.Name())
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
