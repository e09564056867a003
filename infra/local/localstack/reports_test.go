package localstack_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"secscan/shared/api/reports"
	"secscan/shared/app"
	"secscan/shared/config"
	"secscan/shared/lambdahttp"
	"secscan/shared/report/pdf"
	"secscan/shared/scans"
)

// clock is a controllable, race-free clock for the API.
type clock struct{ unix atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.unix.Load()) }
func (c *clock) Set(t time.Time)     { c.unix.Store(t.UnixNano()) }
func withClock(c *clock) stackOption { return func(_ *config.Config, o *app.Options) { o.Now = c.Now } }

// endScan ends a seeded scan with status at finished.
func endScan(t *testing.T, s *stack, a account, id string, status scans.Status, finished time.Time) {
	t.Helper()
	var sum *scans.Summary
	if status == scans.Completed {
		sum = &scans.Summary{RiskRating: scans.RiskLow, Summary: "Fifty low findings on seed.test.", AttackChains: []string{}}
	}
	if _, err := s.api.Store.EndScan(context.Background(), a.user.ID, id, status, "", sum, finished); err != nil {
		t.Fatal(err)
	}
}

// Status codes of the report endpoints, per plan, status and age.
func TestReportStatusCodes(t *testing.T) {
	t.Parallel()
	c := &clock{}
	c.Set(time.Now())
	s := startStack(t, withClock(c))
	free := s.newAccount("free", false)
	starter := s.newAccount("starter", false)
	stranger := s.newAccount("pro", false)
	finished := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)

	freeDone := seedScan(t, s, free, 3, 5)
	endScan(t, s, free, freeDone, scans.Completed, finished)
	paidDone := seedScan(t, s, starter, 3, 5)
	endScan(t, s, starter, paidDone, scans.Completed, finished)
	running := seedScan(t, s, starter, 1, 1)
	failed := seedScan(t, s, starter, 1, 1)
	endScan(t, s, starter, failed, scans.Failed, finished)

	formats := []string{"report.md", "report.html", "report.pdf", "findings.csv"}
	for _, f := range formats {
		freeStatus := http.StatusOK // the free plan gets the Markdown and HTML reports only
		if f == "report.pdf" || f == "findings.csv" {
			freeStatus = http.StatusForbidden
		}
		cases := []struct {
			name   string
			who    account
			scan   string
			status int
		}{
			{"unknown scan", starter, "scn_01ARZ3NDEKTSV4RRFFQ69G5FAV", http.StatusNotFound},
			{"another user's scan", stranger, paidDone, http.StatusNotFound},
			{"running", starter, running, http.StatusConflict},
			{"failed", starter, failed, http.StatusConflict},
			{"completed", starter, paidDone, http.StatusOK},
			{"free plan", free, freeDone, freeStatus},
		}
		for _, tc := range cases {
			r := s.call(http.MethodGet, "/api/scans/"+tc.scan+"/"+f, tc.who.token, nil)
			if r.status != tc.status {
				t.Errorf("%s %s: %d %s, want %d", f, tc.name, r.status, r.body, tc.status)
			}
			if tc.status == http.StatusConflict && !strings.Contains(r.detail(t), "once it has completed") {
				t.Errorf("409 detail %q does not name the status", r.detail(t))
			}
		}
	}

	// The 7-day retention of free-plan reports, on the API's clock.
	c.Set(finished.Add(7*24*time.Hour - time.Minute))
	expect(t, s.call(http.MethodGet, "/api/scans/"+freeDone+"/report.md", free.token, nil), http.StatusOK)
	c.Set(finished.Add(7*24*time.Hour + time.Minute))
	r := s.call(http.MethodGet, "/api/scans/"+freeDone+"/report.html", free.token, nil)
	expect(t, r, http.StatusGone)
	if !strings.Contains(r.detail(t), "7 days") {
		t.Errorf("410 detail %q", r.detail(t))
	}
	expect(t, s.call(http.MethodGet, "/api/scans/"+paidDone+"/report.md", starter.token, nil), http.StatusOK) // paid: kept
	expect(t, s.call(http.MethodGet, "/api/scans/"+paidDone+"/report.pdf?paper=legal", starter.token, nil), http.StatusUnprocessableEntity)
}

// Each format arrives with its type and file name, tells the same story,
// and the free plan's Markdown and HTML carry the watermark.
func TestReportFormats(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	free := s.newAccount("free", false)
	pro := s.newAccount("pro", false)
	finished := time.Now().UTC()
	paid := seedScan(t, s, pro, 4, 6)
	endScan(t, s, pro, paid, scans.Completed, finished)
	demo := seedScan(t, s, free, 2, 2)
	endScan(t, s, free, demo, scans.Completed, finished)

	// Files are named <domain>-<YYYY-MM-DD>-<scan id>.<ext>, dated by the
	// scan's created_at (UTC).
	d, err := s.api.Store.GetScanDetail(context.Background(), pro.user.ID, paid)
	if err != nil {
		t.Fatal(err)
	}
	base := "seed.test-" + d.Scan.CreatedAt.UTC().Format("2006-01-02") + "-" + paid
	for _, tc := range []struct{ file, contentType, ext string }{
		{"report.md", "text/markdown; charset=utf-8", "md"},
		{"report.html", "text/html; charset=utf-8", "html"},
		{"report.pdf", "application/pdf", "pdf"},
		{"findings.csv", "text/csv; charset=utf-8", "csv"},
	} {
		r := s.call(http.MethodGet, "/api/scans/"+paid+"/"+tc.file, pro.token, nil)
		expect(t, r, http.StatusOK)
		if r.header.Get("Content-Type") != tc.contentType || r.header.Get("Content-Disposition") != `attachment; filename="`+base+"."+tc.ext+`"` {
			t.Errorf("%s: Content-Type %q, Content-Disposition %q", tc.file, r.header.Get("Content-Type"), r.header.Get("Content-Disposition"))
		}
		if r.header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s: Cache-Control %q", tc.file, r.header.Get("Cache-Control"))
		}
		switch tc.ext {
		case "pdf":
			if !bytes.HasPrefix(r.body, []byte("%PDF-")) {
				t.Errorf("pdf starts with %q", r.body[:min(8, len(r.body))])
			}
		case "csv":
			rows, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
			if err != nil || len(rows) != 7 || strings.Join(rows[0], ",") != "id,severity,title,category,host,port,cve,cwe,cvss,evidence,remediation,references,description,confidence,check,issue" {
				t.Errorf("csv: %d rows, %v", len(rows), err)
			}
			for _, row := range rows[1:] {
				if len(row) == 16 && row[15] == "" {
					t.Errorf("csv row %s has no issue key", row[0])
				}
			}
		default:
			text := string(r.body)
			if tc.ext == "md" { // Markdown escapes punctuation of target text: read it unescaped
				text = strings.ReplaceAll(text, `\`, "")
			}
			for _, fact := range []string{"seed.test", paid, "Open port 1000", "Fifty low findings"} {
				if !strings.Contains(text, fact) {
					t.Errorf("%s lacks %q", tc.file, fact)
				}
			}
			if strings.Contains(string(r.body), "NOT FOR COMPLIANCE USE") {
				t.Errorf("%s of a paid plan carries the demo watermark", tc.file)
			}
		}
	}
	for _, f := range []string{"report.md", "report.html"} {
		r := s.call(http.MethodGet, "/api/scans/"+demo+"/"+f, free.token, nil)
		expect(t, r, http.StatusOK)
		if !strings.Contains(string(r.body), "DEMO — NOT FOR COMPLIANCE USE") {
			t.Errorf("free %s lacks the watermark", f)
		}
	}
}

// The PDF survives the Lambda proxy path byte for byte: the handler runs
// behind the adapter and event version the template uses (HTTP API, payload
// 2.0), and the base64 body API Gateway would decode equals what it wrote.
func TestPDFThroughTheLambdaProxy(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	a := s.newAccount("starter", false)
	id := seedScan(t, s, a, 5, 20)
	endScan(t, s, a, id, scans.Completed, time.Now())

	var written bytes.Buffer
	direct := reports.Of(s.api, pdf.Render).PDF()
	tee := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		direct.ServeHTTP(rec, r)
		written.Write(rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	path := "/api/scans/" + id + "/report.pdf"
	res, err := lambdahttp.Handler(tee)(context.Background(), events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "GET /api/scans/{id}/report.pdf", RawPath: path, RawQueryString: "paper=letter",
		Headers:        map[string]string{"authorization": "Bearer " + a.token},
		PathParameters: map[string]string{"id": id},
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "proxy-test",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: path, SourceIP: "198.51.100.7"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !res.IsBase64Encoded || res.Headers["Content-Type"] != "application/pdf" {
		t.Fatalf("proxy response: %d base64=%v headers %v body %.200s", res.StatusCode, res.IsBase64Encoded, res.Headers, res.Body)
	}
	decoded, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(decoded, written.Bytes()) || !bytes.HasPrefix(decoded, []byte("%PDF-")) {
		t.Fatalf("decoded body (%d bytes) differs from the %d bytes the handler wrote", len(decoded), written.Len())
	}
}
