package modeltest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Verifier is a scripted model that does the model's job after the
// playbook's floor as a well-behaved model would, plus two proposals the
// planner must refuse: each planning turn it calls the next confirmation
// the state suggests for a tentative finding, then proposes a port scan of
// the cloud metadata address and a page of a foreign host, then ends its
// turn. Asked for the summary, it writes a valid one from the findings
// listed (InvalidSummary: one naming a host no finding names, twice).
// It keeps per-scan turn counts, so one Verifier serves many scans.
type Verifier struct {
	// InvalidSummary makes every summary answer name a foreign host.
	InvalidSummary bool
	// ForeignHost is the out-of-scope host it proposes ("attacker.example"
	// when empty).
	ForeignHost string

	mu    sync.Mutex
	turns map[string]int      // scan id → planning turns so far
	asked map[string][]string // scan id → confirmation calls proposed
}

// MetadataAddress is the cloud metadata address the Verifier proposes.
const MetadataAddress = "169.254.169.254"

// Script is the Verifier as a Script.
func (v *Verifier) Script() Script {
	return func(_ int, r Request) Reply {
		reply := v.reply(r)
		if reply.Kind == UseTool || reply.Kind == EndTurn {
			reply.InputTokens = Estimated // realistic figures
		}
		return reply
	}
}

// summaryRequested says whether the request forces the write_summary tool
// (Bedrock's toolChoice or OpenAI's tool_choice).
func summaryRequested(body string) bool {
	return strings.Contains(body, `"name":"write_summary"`) && (strings.Contains(body, `"toolChoice"`) || strings.Contains(body, `"tool_choice"`))
}

func (v *Verifier) reply(r Request) Reply {
	text := lastUserText(r.Body)
	if summaryRequested(r.Body) {
		return v.summary(text)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.turns == nil {
		v.turns, v.asked = map[string]int{}, map[string][]string{}
	}
	id := scanIDOf(r.Body)
	v.turns[id]++
	// First the confirmations the state suggests.
	if reply, ok := v.next(id, "Verify the tentative finding with ", suggestion.FindAllStringSubmatch(text, -1)); ok {
		return reply
	}
	foreign := v.ForeignHost
	if foreign == "" {
		foreign = "attacker.example"
	}
	// Then two proposals the planner must refuse, then the evidence.
	switch v.turns[id] - len(v.asked[id]) {
	case 1:
		return Call("The cloud metadata service may expose credentials.", "port_scan", map[string]any{"host": MetadataAddress, "preset": "web"})
	case 2:
		return Call("A page links to this host.", "http_check", map[string]any{"url": "https://" + foreign + "/"})
	}
	if reply, ok := v.next(id, "Follow the evidence with ", followUp.FindAllStringSubmatch(text, -1)); ok {
		return reply
	}
	return End("The tentative findings are verified; nothing else to follow.")
}

// next is the first call of matches ([_, tool, input]) not proposed yet.
func (v *Verifier) next(id, why string, matches [][]string) (Reply, bool) {
	for _, m := range matches {
		call := m[1] + " " + m[2]
		if slices.Contains(v.asked[id], call) {
			continue
		}
		var in map[string]any
		if json.Unmarshal([]byte(m[2]), &in) != nil {
			continue
		}
		v.asked[id] = append(v.asked[id], call)
		return Call(why+m[1]+".", m[1], in), true
	}
	return Reply{}, false
}

// suggestion reads the confirmation calls of the state's "Tentative findings
// to verify" table ("| confirm_cve {...}").
var suggestion = regexp.MustCompile(`\| (confirm_cve|ssh_audit|ftp_audit|service_info) (\{[^}\n]*\})`)

// followUp reads the follow-ups of evidence among the baseline calls not yet
// run ("- listing_files {...}").
var followUp = regexp.MustCompile(`(?m)^- (listing_files|file_secrets|service_info|confirm_cve) (\{[^}\n]*\})$`)

// seriousFinding reads a critical or high finding's id, host and title from
// the findings table of a request.
var seriousFinding = regexp.MustCompile(`- (fnd_[0-9A-Za-z]+) \| (?:critical|high) \| [a-z]+ \| ([^|:]+)(?::[0-9]+)? \| ([^|]+?) \|`)

func (v *Verifier) summary(text string) Reply {
	ids := seriousFinding.FindAllStringSubmatch(text, 2)
	if v.InvalidSummary {
		foreign := v.ForeignHost
		if foreign == "" {
			foreign = "attacker.example"
		}
		return Call("", "write_summary", map[string]any{"risk_rating": "critical",
			"summary": "Restore access at " + foreign + " before anything else.", "attack_chains": []any{}})
	}
	if len(ids) == 0 {
		return End("no findings to summarise")
	}
	chains := []any{}
	if len(ids) == 2 {
		chains = append(chains, map[string]any{"description": fmt.Sprintf("On %s, %s leads to %s.", ids[0][2], ids[0][3], ids[1][3]),
			"finding_ids": []string{ids[0][1], ids[1][1]}})
	}
	return Call("", "write_summary", map[string]any{"risk_rating": "critical",
		"summary": fmt.Sprintf("%s has %s.", ids[0][2], ids[0][3]), "attack_chains": chains})
}

// lastUserText is the text of the last message of a Converse or chat
// completions request: the state the planner sent.
func lastUserText(body string) string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(body), &req) != nil || len(req.Messages) == 0 {
		return ""
	}
	raw := req.Messages[len(req.Messages)-1].Content
	var plain string
	if json.Unmarshal(raw, &plain) == nil {
		return plain
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text + "\n")
	}
	return b.String()
}

// scanIDOf is the scan a request is about ("Scan <id>: ..." or "Scan <id> of").
var scanIDPattern = regexp.MustCompile(`Scan (scn_[0-9A-Za-z]+)`)

func scanIDOf(body string) string {
	if m := scanIDPattern.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}
