package report

import (
	"strings"
	"time"

	"secscan/shared/scans"
)

// ProofText is a finding's proof as one plain-text block, the same in
// every format (Markdown fences it, HTML and PDF set it in a monospace
// box): what was sent, what came back and, for HTTP, the curl line that
// repeats it. The text is the target's: callers escape it for their
// format; control characters are already replaced here. Empty when the
// finding has no proof.
func ProofText(p *scans.Proof) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	kind := "protocol transcript"
	if p.Kind == scans.ProofHTTP {
		kind = "HTTP exchange"
	}
	b.WriteString("Proof: " + kind + ", observed " + p.ObservedAt.UTC().Format(time.RFC3339) + "\n\n")
	b.WriteString("Request:\n" + p.Request + "\n\nResponse:\n" + p.Response)
	if p.Curl != nil && *p.Curl != "" {
		b.WriteString("\n\nRepeat with:\n" + *p.Curl)
	}
	return strings.TrimRight(textClean(textLF(b.String()), true), "\n")
}
