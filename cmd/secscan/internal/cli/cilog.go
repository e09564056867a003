package cli

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// logSafe writes text that may end up in a CI log, where the runner reads
// each line for commands (GitHub Actions: a line that starts with "::",
// after white space, such as ::set-output or ::add-mask; the older "##[" form
// anywhere in a line) and a terminal or log viewer obeys escape sequences.
// Scanned targets choose much of what the CLI prints (titles, evidence, the
// summary, error details), so every line is made safe on its way out:
//
//   - control characters go (C0 but newline and tab, DEL, C1, the bidi
//     overrides and isolates, the Unicode line and paragraph separators):
//     no escape sequences, and no carriage return, which the runner also
//     reads as a line end;
//   - a line whose first non-space characters are "::" loses its leading
//     colons (and the space before them);
//   - "##[" becomes "# #[".
//
// It works on a stream: what cannot be judged yet (the start of a line that
// is only white space or one colon so far, an incomplete UTF-8 sequence,
// trailing '#') is held until more arrives or Flush.
type logSafe struct {
	mu      sync.Mutex // progress and messages may write at once
	w       io.Writer
	midLine bool   // the current line's start has been judged and written
	held    []byte // not yet written
}

func newLogSafe(w io.Writer) *logSafe { return &logSafe{w: w} }

// Write makes p safe and writes what can be judged; it always consumes p.
func (s *logSafe) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = append(s.held, p...)
	if out := s.drain(false); len(out) > 0 {
		if _, err := s.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes whatever is held (at the end of a command).
func (s *logSafe) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if out := s.drain(true); len(out) > 0 {
		_, err := s.w.Write(out)
		return err
	}
	return nil
}

// drain returns the safe form of the held bytes that can be judged (all of
// them when final) and keeps the rest.
func (s *logSafe) drain(final bool) []byte {
	var out []byte
	for {
		i := bytes.IndexByte(s.held, '\n')
		if i < 0 {
			break
		}
		out = append(out, s.safe(s.held[:i])...)
		out = append(out, '\n')
		s.held, s.midLine = s.held[i+1:], false
	}
	keep := 0
	if !final {
		keep = s.undecided(s.held)
	}
	if n := len(s.held) - keep; n > 0 {
		out = append(out, s.safe(s.held[:n])...)
		s.midLine = true
	}
	s.held = append([]byte(nil), s.held[len(s.held)-keep:]...)
	return out
}

// undecided is how many trailing bytes of a partial line must wait.
func (s *logSafe) undecided(b []byte) int {
	tail := incompleteRune(b)
	body := b[:len(b)-tail]
	if !s.midLine && couldBeCommand(body) {
		return len(b) // could still become (or stay) a line that starts with "::"
	}
	hashes := 0 // could still become "##["
	for hashes < 2 && hashes < len(body) && body[len(body)-1-hashes] == '#' {
		hashes++
	}
	return tail + hashes
}

// incompleteRune is the length of the incomplete UTF-8 sequence b ends
// with (0 when none).
func incompleteRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// couldBeCommand says whether the start of a line so far could still
// become a workflow command ("::"): nothing but spaces and colons yet.
func couldBeCommand(start []byte) bool {
	t := strings.TrimLeftFunc(stripControls(string(start)), unicode.IsSpace)
	return t == "" || t == ":" || strings.HasPrefix(t, "::") && strings.TrimLeftFunc(t, spaceOrColon) == ""
}

// safe is the safe form of part of one line (no newline in b).
func (s *logSafe) safe(b []byte) []byte {
	t := stripControls(string(b))
	if !s.midLine && strings.HasPrefix(strings.TrimLeftFunc(t, unicode.IsSpace), "::") {
		t = strings.TrimLeftFunc(t, spaceOrColon)
	}
	return []byte(strings.ReplaceAll(t, "##[", "# #["))
}

func spaceOrColon(r rune) bool { return r == ':' || unicode.IsSpace(r) }

// stripControls removes what a terminal or a log viewer would not show as
// text: every control character but tab, the bidi controls and the line and
// paragraph separators.
func stripControls(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\u2028', r == '\u2029', r == '\u200e', r == '\u200f',
			r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == utf8.RuneError:
			return -1
		}
		return r
	}, s)
}
