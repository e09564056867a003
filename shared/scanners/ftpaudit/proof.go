package ftpaudit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"secscan/shared/proof"
	"secscan/shared/scans"
)

// maxTranscriptLines bounds the exchange a proof keeps (commands and
// replies, in order); the audit sends few commands, listings are long.
const maxTranscriptLines = 40

// transcript is the control connections' exchange: what was sent and the
// first line of each reply, the password never (it is an e-mail address,
// but a proof shows no password).
type transcript struct {
	sentLines, replyLines []string
	dropped               int
	at                    time.Time
}

func (t *transcript) add(lines *[]string, line string) {
	if len(t.sentLines)+len(t.replyLines) >= maxTranscriptLines {
		t.dropped++
		return
	}
	*lines = append(*lines, line)
	t.at = time.Now()
}

func (t *transcript) connect(host string, port int) {
	t.add(&t.sentLines, fmt.Sprintf("connect %s:%d over TCP", host, port))
}

func (t *transcript) sent(line string) {
	if verb, _, _ := strings.Cut(line, " "); verb == "PASS" {
		line = "PASS <e-mail address>"
	}
	t.add(&t.sentLines, line)
}

func (t *transcript) received(code int, text string) {
	first, _, _ := strings.Cut(text, "\n")
	t.add(&t.replyLines, strconv.Itoa(code)+" "+strings.TrimSpace(first))
}

// proof is the transcript as a finding's proof.
func (t *transcript) proof() *scans.Proof {
	replies := strings.Join(t.replyLines, "\n")
	if t.dropped > 0 {
		replies += fmt.Sprintf("\n… (%d more lines)", t.dropped)
	}
	return proof.Transcript(strings.Join(t.sentLines, "\n"), replies, t.at)
}
