// Package mdtext makes text from a user's files (column names, notes of a
// CSV or a model file) safe to print in featuredp's markdown and on a
// terminal. It is the one place release's certificate and dpnb's reports
// escape control characters.
package mdtext

import (
	"fmt"
	"strings"
	"unicode"
)

// Controls writes every control character of s (unicode.IsControl: ESC,
// BEL, DEL, CR, the C1 controls such as CSI and NEL) except tab and line
// feed as a Go escape such as \x1b, so that a name cannot send a terminal
// escape sequence (clear the screen, retitle the window, forge a link)
// when a report or certificate is printed. Tab and line feed are layout,
// which the caller handles (a table cell turns them into spaces). Text
// without such characters is returned unchanged.
func Controls(s string) string {
	if !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if escaped(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// escaped reports a control character Controls writes as an escape.
func escaped(r rune) bool { return r != '\t' && r != '\n' && unicode.IsControl(r) }
