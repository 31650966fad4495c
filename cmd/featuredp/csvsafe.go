package main

// Spreadsheet formula injection: a CSV cell the CLI writes from text it
// did not choose (a model file's class names, a data file's column names)
// is neutralised before a spreadsheet opens it.

import (
	"strings"

	"github.com/featuredp/featuredp/data"
)

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
