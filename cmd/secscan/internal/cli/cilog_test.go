package cli

import (
	"bytes"
	"testing"
)

// The filter judges a line's start however the text is split into writes:
// one byte at a time gives exactly what one write gives.
func TestLogSafeIsIndependentOfWriteBoundaries(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"::set-output name=a::b\n":             "set-output name=a::b\n",
		"ok\n  \t::error::x\n":                 "ok\nerror::x\n",
		"a::b\n:: ::c\n":                       "a::b\nc\n",
		":single\n: :spaced\n":                 ":single\n: :spaced\n",
		"x\r::add-mask::y\n":                   "x::add-mask::y\n", // \r is gone: no new line
		"\x1b[31m::warning::w\x1b[0m\n":        "[31m::warning::w[0m\n",
		"\x1b::warning::w\n":                   "warning::w\n",
		"say ##[set-output name=a;]b\n":        "say # #[set-output name=a;]b\n",
		"é\u202e\u2028ü\x07\x7f\u0085\n":       "éü\n",
		"prompt without newline ":              "prompt without newline ",
		"   ":                                  "   ",
		":":                                    ":",
		"tab\tkept\n\u00a0\u3000::cmd\ntail #": "tab\tkept\ncmd\ntail #",
	} {
		var whole, split bytes.Buffer
		w := newLogSafe(&whole)
		_, _ = w.Write([]byte(in))
		_ = w.Flush()
		s := newLogSafe(&split)
		for i := range len(in) {
			_, _ = s.Write([]byte{in[i]})
		}
		_ = s.Flush()
		if whole.String() != want || split.String() != want {
			t.Errorf("%q: one write %q, byte by byte %q, want %q", in, whole.String(), split.String(), want)
		}
	}
}

// A partial line is written as soon as it can be judged (a prompt shows
// before its answer is read), not held until the newline.
func TestLogSafeWritesAJudgedPartialLineAtOnce(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := newLogSafe(&out)
	_, _ = w.Write([]byte("Cancel the scan? [y/N] "))
	if out.String() != "Cancel the scan? [y/N] " {
		t.Errorf("held a prompt: %q", out.String())
	}
	_, _ = w.Write([]byte("\n  :"))
	if out.String() != "Cancel the scan? [y/N] \n" {
		t.Errorf("wrote an undecided line start: %q", out.String())
	}
	_, _ = w.Write([]byte(":x\n"))
	if out.String() != "Cancel the scan? [y/N] \nx\n" {
		t.Errorf("got %q", out.String())
	}
}
