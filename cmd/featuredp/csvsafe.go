package main

// User files are hostile input. Reading: openInput opens a file the user
// names (--csv, --ledger, a shard) as a regular file only, without a race
// between check and open. Writing: spreadsheet formula injection, a CSV
// cell the CLI writes from text it did not choose (a model file's class
// names, a data file's column names), is neutralised before a spreadsheet
// opens it.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/safefile"
)

// openInput opens the user's file at path for reading with safefile.Open;
// what names it in errors ("--csv", "shard file"). A directory, a named
// pipe, a device or a socket, or a link to one, is refused on the opened
// file with an error naming what, the path and the fix: a pipe swapped in
// after any earlier check cannot block the command for ever, nor a device
// feed it without end.
// The refusal wraps the safefile.NotRegularError, so that a caller can add
// its own fix for a pipe (predictInput).
func openInput(what, path string) (*os.File, error) {
	fh, _, err := safefile.Open(path)
	var nr safefile.NotRegularError
	switch {
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return nil, &inputError{fmt.Sprintf("%s %s is not a regular file: it is a directory; give the file itself", what, path), nr}
	case errors.As(err, &nr):
		return nil, &inputError{fmt.Sprintf("%s %s is not a regular file (mode %v): featuredp reads only regular files "+
			"(a named pipe could block it for ever, a device feed it without end); save the data to a file and give that", what, path, nr.Mode), nr}
	case err != nil:
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return fh, nil
}

// inputError is openInput's refusal: its message, naming the flag and the
// fix, wrapping safefile's error.
type inputError struct {
	msg string
	err error
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.err }

// spreadsheetSafe returns s as a CSV cell that a spreadsheet shows as
// text rather than evaluating: a cell starting with '=', '+', '-', '@', a
// tab or a carriage return is a formula to Excel and LibreOffice (a class
// name `=HYPERLINK("http://…","y")` in a hostile model file would be a
// link), so such a cell gets a leading single quote, the neutralisation
// of OWASP's "CSV Injection" page. A plain decimal number
// (data.ParseNumber, with no space around it), such as the class names -1
// and +1, is left as it is: a spreadsheet reads it as that number.
func spreadsheetSafe(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := data.ParseNumber(s); err == nil && s == strings.TrimSpace(s) {
		return s
	}
	return "'" + s
}
