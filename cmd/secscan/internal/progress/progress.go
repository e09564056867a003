// Package progress shows a running scan: on a terminal, one status line
// redrawn in place (current step, steps done, credits used of max, findings
// so far by severity, elapsed time); elsewhere (CI logs), one plain line per
// new agent step. Cursor control (clear line, hide and show the cursor)
// goes through termenv rather than hand-written escape codes.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/muesli/termenv"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/findings"
	"secscan/shared/scans"
)

// Reporter is told about every poll of the scan.
type Reporter interface {
	// Update shows the scan as last read.
	Update(s client.Scan)
	// Tick redraws what depends on the clock alone (a live line's elapsed time).
	Tick()
	// Pause clears the live line so that other text (a question) can be
	// printed; the next Update or Tick redraws it.
	Pause()
	// Done ends the display, leaving the terminal on a fresh line.
	Done()
}

// Plain writes one line per status change and per new agent step, for logs.
type Plain struct {
	W     io.Writer
	Now   func() time.Time
	start time.Time

	mu       sync.Mutex
	status   string
	lastSeq  int
	findings int
}

// NewPlain returns a Plain reporter writing to w.
func NewPlain(w io.Writer) *Plain { return &Plain{W: w, Now: time.Now} }

func (p *Plain) elapsed() string {
	if p.start.IsZero() {
		p.start = p.Now()
	}
	return formatElapsed(p.Now().Sub(p.start))
}

// Update prints what is new since the last update.
func (p *Plain) Update(s client.Scan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range s.Steps {
		if st.Seq <= p.lastSeq {
			continue
		}
		p.lastSeq = st.Seq
		fmt.Fprintf(p.W, "[%s] step %d %s %s: %d credits, %d findings added — %s\n", p.elapsed(), st.Seq,
			findings.CleanLine(st.Tool, 40), st.Status, st.Credits, st.FindingsAdded, findings.CleanLine(st.Outcome, 160))
	}
	if s.Status != p.status {
		p.status = s.Status
		line := fmt.Sprintf("[%s] scan %s %s: %d of %d credits used, %d findings", p.elapsed(), s.ID, s.Status,
			s.CreditsUsed, s.MaxCredits, len(s.Findings))
		if s.Error != nil && *s.Error != "" {
			line += " — " + findings.CleanLine(*s.Error, 300)
		}
		fmt.Fprintln(p.W, line)
	}
}

// Tick does nothing: a log gets a line per event, not per second.
func (p *Plain) Tick() {}

// Pause does nothing: plain lines never need clearing.
func (p *Plain) Pause() {}

// Done does nothing: every line already ended.
func (p *Plain) Done() {}

// Live redraws one status line on a terminal.
type Live struct {
	out   *termenv.Output
	width func() int
	now   func() time.Time
	start time.Time

	mu    sync.Mutex
	scan  client.Scan
	seen  bool
	shown bool
	frame int
}

// NewLive returns a live line on w (a terminal); width reports its columns
// (0 when unknown).
func NewLive(w io.Writer, width func() int) *Live {
	return &Live{out: termenv.NewOutput(w), width: width, now: time.Now, start: time.Now()}
}

// Update records the scan and redraws.
func (l *Live) Update(s client.Scan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scan, l.seen = s, true
	l.draw()
}

// Tick redraws (the elapsed time and the spinner move).
func (l *Live) Tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frame++
	l.draw()
}

// Pause clears the line.
func (l *Live) Pause() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		l.out.ClearLine()
		fmt.Fprint(l.out, "\r")
		l.out.ShowCursor()
		l.shown = false
	}
}

// Done leaves the last state on its own line.
func (l *Live) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.out, "\n")
		l.out.ShowCursor()
		l.shown = false
	}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (l *Live) draw() {
	if !l.seen {
		return
	}
	line := StatusLine(l.scan, l.now().Sub(l.start))
	if !l.scan.Terminal() {
		line = spinner[l.frame%len(spinner)] + " " + line
	}
	if w := l.width(); w > 1 {
		// Never wrap: a wrapped line cannot be redrawn in place.
		if r := []rune(line); len(r) > w-1 {
			line = string(r[:w-2]) + "…"
		}
	}
	if !l.shown {
		l.out.HideCursor()
	}
	l.out.ClearLine()
	fmt.Fprint(l.out, "\r"+line)
	l.shown = true
}

// StatusLine is the text of the live line: status, the step running now
// (its number and tool, as the record's current_step names it), steps done, credits used of max, findings so far by severity, elapsed time.
func StatusLine(s client.Scan, elapsed time.Duration) string {
	counts := findings.CountBySeverity(s.Findings)
	step := ""
	switch {
	case s.Status == client.Running && s.CurrentStep != nil:
		step = fmt.Sprintf("step %d %s · ", s.CurrentStep.Seq, findings.CleanLine(s.CurrentStep.Tool, 30))
	case s.Status == client.Running:
		// Between steps (the agent plans the next), or a server that does
		// not say which step runs: the number only, never the last tool.
		step = fmt.Sprintf("step %d · ", len(s.Steps)+1)
	case s.Status == client.Queued:
		step = "waiting to start · "
	}
	sev := make([]string, 0, len(counts))
	for i, n := range counts {
		sev = append(sev, fmt.Sprintf("%d%s", n, strings.ToUpper(string(scans.Severities[i][:1]))))
	}
	// The scan id was printed when the scan started; the line keeps what
	// changes, most useful first, so a narrow terminal cuts the least.
	return fmt.Sprintf("%s · %s%d steps done · %d/%d credits · findings %s · %s",
		s.Status, step, len(s.Steps), s.CreditsUsed, s.MaxCredits, strings.Join(sev, " "), formatElapsed(elapsed))
}

func formatElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
