package pdf_test

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"secscan/shared/plans"
	"secscan/shared/report"
	"secscan/shared/scans"
)

// realDemo is the report of a real full/standard scan of the local stack's
// demo target (make run), as GET /api/scans/<id> returned it on 2026-11-26 (with
// proofs): 165 findings in 64 issues, 40 steps. The record is the API's shape, so the
// fields the report needs are decoded from it here.
func realDemo(t *testing.T) report.Report {
	t.Helper()
	f, err := os.Open("testdata/demo-full-standard.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ID         string          `json:"id"`
		Target     string          `json:"target"`
		TargetID   string          `json:"target_id"`
		ScanType   scans.Type      `json:"scan_type"`
		Tier       string          `json:"tier"`
		Status     scans.Status    `json:"status"`
		Credits    int             `json:"credits_used"`
		MaxCredits int             `json:"max_credits"`
		Created    time.Time       `json:"created_at"`
		Started    time.Time       `json:"started_at"`
		Finished   time.Time       `json:"finished_at"`
		Summary    *scans.Summary  `json:"summary"`
		Findings   []scans.Finding `json:"findings"`
		Issues     []scans.Issue   `json:"issues"`
		Steps      []scans.Step    `json:"agent_steps"`
		Surface    scans.Surface   `json:"surface"`
	}
	if err := json.NewDecoder(z).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	sc := scans.Scan{ID: rec.ID, TargetID: rec.TargetID, Target: rec.Target, Type: rec.ScanType, Tier: plans.Tier(rec.Tier), Status: rec.Status,
		CreditsUsed: rec.Credits, MaxCredits: rec.MaxCredits, Summary: rec.Summary, CreatedAt: rec.Created,
		StartedAt: rec.Started, FinishedAt: rec.Finished, FindingsCount: len(rec.Findings), IssuesCount: len(rec.Issues)}
	return report.Build(report.Input{Scan: sc, Findings: rec.Findings, Issues: rec.Issues, Steps: rec.Steps, Surface: rec.Surface,
		GeneratedAt: rec.Finished.Add(time.Minute)})
}

// TestPDFRealDemo renders the real demo scan: at most 25 pages (64 before
// issues, 37 with issues before the compact rows), with every finding's id
// and every issue's title in it.
func TestPDFRealDemo(t *testing.T) {
	t.Parallel()
	poppler(t)
	r := realDemo(t)
	if len(r.Findings) < 150 || len(r.Issues) < 55 || len(r.Steps) < 40 {
		t.Fatalf("fixture: %d findings, %d issues, %d steps; want the full demo", len(r.Findings), len(r.Issues), len(r.Steps))
	}
	path, doc := renderPDF(t, r, report.A4, "real-demo.pdf")
	i := info(t, path)
	t.Logf("real demo: %d findings, %d issues, %d steps: %d pages, %d KiB", len(r.Findings), len(r.Issues), len(r.Steps), i.pages, len(doc)>>10)
	if i.pages > 25 {
		t.Errorf("real demo PDF has %d pages, want at most 25", i.pages)
	}
	text := squash(run(t, "pdftotext", "-enc", "UTF-8", path, "-"))
	for _, f := range r.Findings {
		if !strings.Contains(text, f.ID) {
			t.Errorf("finding %s is not in the PDF", f.ID)
		}
	}
	for _, is := range r.Issues {
		if !strings.Contains(text, squash(pdfVisible.Replace(is.Title))) {
			t.Errorf("issue %q is not in the PDF", is.Title)
		}
	}
}
