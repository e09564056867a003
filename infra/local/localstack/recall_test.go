package localstack_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/demotarget"
	"secscan/shared/scans"
)

// recallFinding is what the recall test reads of a finding.
type recallFinding struct {
	Title      string `json:"title"`
	Severity   string `json:"severity"`
	Category   string `json:"category"`
	Host       string `json:"host"`
	Evidence   string `json:"evidence"`
	Confidence string `json:"confidence"`
}

// recallView is the part of a full scan record the recall test reads.
type recallView struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	CreditsUsed int    `json:"credits_used"`
	MaxCredits  int    `json:"max_credits"`
	IssuesCount int    `json:"issues_count"`
	Error       *string
	Findings    []recallFinding `json:"findings"`
	AgentSteps  []struct {
		Tool    string         `json:"tool"`
		Input   map[string]any `json:"input"`
		Status  string         `json:"status"`
		Outcome string         `json:"outcome"`
	} `json:"agent_steps"`
	Surface scans.Surface `json:"surface"`
	Summary *struct {
		Summary string `json:"summary"`
	} `json:"summary"`
}

// planted is one weakness the demo target carries on purpose.
type planted struct {
	label      string // the host's label ("" for the apex)
	title      string // a substring of the finding's title
	confidence scans.Confidence
	tiers      []string // the tiers that must find it
}

var plantedWeaknesses = []planted{
	{"ns1", "Zone transfer (AXFR) allowed", scans.Certain, []string{"standard", "deep"}},
	{demotarget.LegacyTLSLabel, "TLS 1.0 accepted", scans.Certain, []string{"standard", "deep"}},
	{demotarget.ExpiredLabel, "TLS certificate expired", scans.Certain, []string{"standard", "deep"}},
	{demotarget.SelfSignedLabel, "Self-signed TLS certificate", scans.Certain, []string{"standard", "deep"}},
	{demotarget.MismatchLabel, "TLS certificate does not match the host name", scans.Certain, []string{"standard", "deep"}},
	{demotarget.PortalLabel, "submits over plain HTTP|Password field on a page served over HTTP", scans.Certain, []string{"deep"}},
	{"", "Database dump downloadable from a directory listing: /backup/" + demotarget.DumpFile, scans.Certain, []string{"standard", "deep"}},
	{"", "AWS access key exposed in /.env", scans.Certain, []string{"standard", "deep"}},
	{"", "Stripe secret key exposed in /.env", scans.Certain, []string{"standard", "deep"}},
	{"", "Database connection URL with password exposed in /.env", scans.Certain, []string{"standard", "deep"}},
	{"", "Redis accepts commands without authentication", scans.Certain, []string{"standard", "deep"}},
	{"", "Redis " + demotarget.RedisVersion + ": 4 known vulnerabilities", scans.Tentative, []string{"standard", "deep"}},
	{"", "Apache HTTP Server path traversal confirmed (CVE-2021-41773)", scans.Certain, []string{"standard", "deep"}},
	{"", "Password field on a page served over HTTP", scans.Certain, []string{"standard", "deep"}},
	{"", "SSH server offers weak key exchange algorithms", scans.Certain, []string{"standard", "deep"}},
	{"", "SSH server accepts password logins", scans.Certain, []string{"standard", "deep"}},
	{"", "Sensitive-looking files readable over anonymous FTP", scans.Certain, []string{"standard", "deep"}},
	{demotarget.WildcardLabel, "Wildcard DNS record answers for any name", scans.Certain, []string{"standard", "deep"}},
	{"", "Prometheus metrics endpoint exposed without authentication", scans.Certain, []string{"standard", "deep"}},
	{"", "Go pprof profiling endpoint exposed", scans.Certain, []string{"standard", "deep"}},
}

// The demo's planted weaknesses are found, each with its confidence, by
// full standard and deep scans through the real stack; the hardened host
// has nothing medium or higher; every host comes from the source that is
// the only way to find it. Its figures (recall, findings, steps, credits,
// wall times) are the README's recall blocks (recallFigures).
func TestDemoRecall(t *testing.T) {
	t.Parallel()
	demo := startDemo(t, fullDemo("recall.test", "127.0.0.3"))
	s := startStack(t, withDemo(t, demo))
	a := s.newAccount("pro", false)
	s.verifiedTarget(a, demo.Domain(), func(token string) { _ = demo.PublishChallenge(token) })

	var figures []tierFigures
	for _, tier := range []string{"standard", "deep"} {
		start := time.Now()
		sc := s.createScan(a, map[string]any{"target": demo.Domain(), "scan_type": "full", "tier": tier})
		done := awaitRecall(t, s, a, sc.ID)
		wall := time.Since(start)
		if done.Status != "completed" {
			t.Fatalf("%s scan ended %s (%v)", tier, done.Status, done.Error)
		}
		fqdn := func(label string) string {
			if label == "" {
				return demo.Domain()
			}
			return label + "." + demo.Domain()
		}
		found := 0
		for _, p := range plantedWeaknesses {
			i := slices.IndexFunc(done.Findings, func(f recallFinding) bool {
				// Several secrets of one file are one finding (one check, host
				// and port): the others are named in its evidence.
				return f.Host == fqdn(p.label) && slices.ContainsFunc(strings.Split(p.title, "|"), func(t string) bool {
					return strings.Contains(f.Title, t) || strings.Contains(f.Evidence, t)
				})
			})
			must := slices.Contains(p.tiers, tier)
			switch {
			case i < 0 && must:
				t.Errorf("%s: %q on %s not found", tier, p.title, fqdn(p.label))
			case i < 0:
				t.Logf("%s: %q on %s not found (not expected on this tier)", tier, p.title, fqdn(p.label))
			case done.Findings[i].Confidence != string(p.confidence):
				t.Errorf("%s: %q confidence %s, want %s", tier, p.title, done.Findings[i].Confidence, p.confidence)
				found++
			default:
				found++
			}
		}
		checkDemoProofs(t, s, a, sc.ID, tier)
		hardened := fqdn(demotarget.HardenedLabel)
		onHardened := 0
		for _, f := range done.Findings {
			if f.Host != hardened {
				continue
			}
			onHardened++
			if scans.Severity(f.Severity).Rank() <= scans.Medium.Rank() {
				t.Errorf("%s: %s finding on the hardened host: %s (%s)", tier, f.Severity, f.Title, f.Evidence)
			}
		}
		sources := map[string]scans.HostSource{
			demotarget.LegacyTLSLabel: scans.SourceAXFR, demotarget.HardenedLabel: scans.SourceAXFR,
			demotarget.SelfSignedLabel: scans.SourceCertificate, demotarget.PortalLabel: scans.SourceLink,
		}
		for label, src := range sources {
			h, ok := done.Surface.Host(fqdn(label))
			if !ok || !slices.Contains(h.Sources, src) {
				t.Errorf("%s: surface host %s: %+v, want source %s", tier, fqdn(label), h, src)
			}
		}
		if done.CreditsUsed > done.MaxCredits {
			t.Errorf("%s: %d of %d credits", tier, done.CreditsUsed, done.MaxCredits)
		}
		for _, st := range done.AgentSteps {
			if st.Status != "ok" || testing.Verbose() {
				t.Logf("%s: step %s %v ended %s: %.300s", tier, st.Tool, st.Input, st.Status, st.Outcome)
			}
		}
		t.Logf("FIGURES %s: recall %d/%d planted weaknesses; %d findings on the hardened host (none medium+); wall %v; credits %d of %d; %d steps; %d findings (%d before grouping); %d hosts, %d services, %d origins, %d out-of-scope names",
			tier, found, len(plantedWeaknesses), onHardened, wall.Round(100*time.Millisecond), done.CreditsUsed, done.MaxCredits,
			len(done.AgentSteps), len(done.Findings), beforeGrouping(done), len(done.Surface.Hosts), len(done.Surface.Services),
			len(done.Surface.Web), done.Surface.OutOfScope)
		t.Logf("FIGURES %s steps per host: %s", tier, stepsPerHost(done, demo.Domain()))
		swept := map[string]int{}
		for _, st := range done.AgentSteps {
			if h, ok := st.Input["host"].(string); ok && st.Tool == "port_scan" && st.Input["range"] != nil {
				swept[h]++
			}
		}
		for _, a := range done.Surface.Addresses {
			t.Logf("FIGURES %s: address %s probed %v, tied by %q (%s); range calls by host %v", tier, a.Address, a.Probed, a.TiedBy, a.TiedName, swept)
		}
		for _, h := range done.Surface.Hosts {
			if h.NotProbed != "" {
				t.Logf("FIGURES %s: %s not probed: %s", tier, h.Name, h.NotProbed)
			}
			if h.NotScanned != "" {
				t.Logf("FIGURES %s: %s not scanned: %s", tier, h.Name, h.NotScanned)
			}
		}
		if done.Summary != nil {
			t.Logf("%s summary: %s", tier, done.Summary.Summary)
		}
		figures = append(figures, tierFigures{tier: tier, found: found, record: done, beforeGrouping: beforeGrouping(done), wall: wall})
	}
	recallFigures(t, figures)
}

var cvePattern = regexp.MustCompile(`CVE-\d{4}-\d{4,}`)

// beforeGrouping counts the findings as one per CVE, as before version
// matches were grouped per component and service.
func beforeGrouping(v recallView) int {
	n := 0
	for _, f := range v.Findings {
		if strings.Contains(f.Title, " known vulnerabilities (most severe ") {
			seen := map[string]bool{}
			for _, c := range cvePattern.FindAllString(f.Evidence, -1) {
				seen[c] = true
			}
			n += len(seen)
			continue
		}
		n++
	}
	return n
}

func stepsPerHost(v recallView, domain string) string {
	count := map[string]int{}
	for _, st := range v.AgentSteps {
		host := domain + " (domain-wide)"
		for _, k := range []string{"host", "url", "base_url"} {
			if s, ok := st.Input[k].(string); ok && s != "" {
				host = s
				if i := strings.Index(s, "://"); i >= 0 {
					host = strings.SplitN(s[i+3:], "/", 2)[0]
					host = strings.Split(host, ":")[0]
				}
				break
			}
		}
		count[host]++
	}
	var parts []string
	for h, n := range count {
		parts = append(parts, fmt.Sprintf("%s %d", h, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func awaitRecall(t *testing.T, s *stack, a account, id string) recallView {
	t.Helper()
	return awaitEnded[recallView](t, s, a, id, 8*time.Minute)
}

// awaitEnded polls a scan until it has ended (waiting out 429s) and decodes
// its record as a V.
func awaitEnded[V any](t *testing.T, s *stack, a account, id string, within time.Duration) V {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := s.call(http.MethodGet, "/api/scans/"+id, a.token, nil)
		if r.status == http.StatusTooManyRequests {
			time.Sleep(2 * time.Second)
			continue
		}
		status := decoded[struct{ Status scans.Status }](t, r, http.StatusOK)
		if status.Status.Terminal() {
			var v V
			r.json(t, &v)
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still %s", id, status.Status)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
