package mdtext

import "testing"

func TestControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain name", "plain name"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"cr\rdel\x7f", `cr\x0ddel\x7f`},
		{"c1 \u009b csi \u0085 nel", `c1 \x9b csi \x85 nel`},
		{"ünïcode ε", "ünïcode ε"},
		{"smoker\u202e\u2066x", `smoker\u202e\u2066x`},
		{"lrm\u200e alm\u061c", `lrm\u200e alm\u061c`},
		{"zero\u200bwidth joiner\u200d", "zero\u200bwidth joiner\u200d"},
		{"", ""},
	} {
		if got := Controls(c.in); got != c.want {
			t.Errorf("Controls(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
