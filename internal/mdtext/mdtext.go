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
// which the caller handles (a table cell turns them into spaces). The
// bidirectional formatting characters (unicode.Bidi_Control: U+202E
// RIGHT-TO-LEFT OVERRIDE and its kin) are written as \u escapes too: they
// reorder the text displayed after them, so a column name holding one
// could make a certificate line read differently from its bytes. Text
// without such characters is returned unchanged.
func Controls(s string) string {
	if !strings.ContainsFunc(s, escaped) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !escaped(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// escaped reports a control character Controls writes as an escape.
func escaped(r rune) bool {
	return r != '\t' && r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r))
}
