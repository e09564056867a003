// Package reports serves the report downloads of a completed scan (CONTRACT
// "Reports"): Markdown, HTML, PDF and the findings CSV. It is apart from
// package api so that only the four report functions link the report
// renderers (shared/report); get-scan and the other endpoints do not.
package reports

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"secscan/shared/api"
	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/report"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// Store is what the report endpoints read (store.Store).
type Store interface {
	GetScanDetail(ctx context.Context, userID, id string) (store.ScanDetail, error)
	GetTarget(ctx context.Context, userID, id string) (store.Target, error)
}

// Handlers are the report endpoints and what they need.
type Handlers struct {
	Store  Store
	Auth   *auth.Authenticator
	Now    func() time.Time
	Logger *slog.Logger
	// RenderPDF renders the PDF report (report/pdf.Render): a field, so that
	// only the function serving PDFs links maroto.
	RenderPDF func(report.Report, report.Paper) ([]byte, error)
}

// Of is the report endpoints of a's store, authenticator, clock and logger;
// renderPDF is needed by PDF only.
func Of(a *api.API, renderPDF func(report.Report, report.Paper) ([]byte, error)) *Handlers {
	return &Handlers{Store: a.Store, Auth: a.Auth, Now: a.Now, Logger: a.Logger, RenderPDF: renderPDF}
}

// Markdown is ReportMarkdownFunction, GET /api/scans/{id}/report.md.
func (h *Handlers) Markdown() http.Handler { return h.serve(markdownReport) }

// HTML is ReportHTMLFunction, GET /api/scans/{id}/report.html.
func (h *Handlers) HTML() http.Handler { return h.serve(htmlReport) }

// PDF is ReportPDFFunction, GET /api/scans/{id}/report.pdf. It panics
// without RenderPDF: at cold start, not at the first request.
func (h *Handlers) PDF() http.Handler {
	if h.RenderPDF == nil {
		panic("reports: PDF needs RenderPDF")
	}
	return h.serve(pdfReport)
}

// CSV is FindingsCSVFunction, GET /api/scans/{id}/findings.csv.
func (h *Handlers) CSV() http.Handler { return h.serve(csvReport) }

// serve is format's endpoint, authenticated. It panics without Store,
// Auth or Now: at cold start, not at the first request.
func (h *Handlers) serve(format reportFormat) http.Handler {
	for _, dep := range []struct {
		name    string
		missing bool
	}{{"Store", h.Store == nil}, {"Auth", h.Auth == nil}, {"Now", h.Now == nil}} {
		if dep.missing {
			panic("reports: the " + format.name + " report needs " + dep.name)
		}
	}
	return httpapi.Observe(h.Logger, api.Authenticated(h.Auth, h.report(format)))
}

// reportFormat is one downloadable rendering of a completed scan.
type reportFormat struct {
	name        string // the plan's name for it: md, html, pdf, csv
	contentType string
	render      func(h *Handlers, r report.Report, req *http.Request) ([]byte, error)
}

var (
	markdownReport = reportFormat{"md", "text/markdown; charset=utf-8",
		func(_ *Handlers, r report.Report, _ *http.Request) ([]byte, error) { return report.Markdown(r), nil }}
	htmlReport = reportFormat{"html", "text/html; charset=utf-8",
		func(_ *Handlers, r report.Report, _ *http.Request) ([]byte, error) { return report.HTML(r), nil }}
	pdfReport = reportFormat{"pdf", "application/pdf",
		func(h *Handlers, r report.Report, req *http.Request) ([]byte, error) {
			paper := report.A4
			switch req.URL.Query().Get("paper") {
			case "", "a4":
			case "letter":
				paper = report.Letter
			default:
				return nil, apierr.Field("paper", "must be a4 or letter")
			}
			return h.RenderPDF(r, paper)
		}}
	csvReport = reportFormat{"csv", "text/csv; charset=utf-8",
		func(_ *Handlers, r report.Report, _ *http.Request) ([]byte, error) { return report.CSV(r), nil }}
)

// report serves format for a completed scan of the caller (CONTRACT
// "Reports"): 403 when the plan lacks the format (decided before any read),
// 404 for an unknown or foreign scan, 409 unless completed, 410 once a
// free-plan report's retention has passed.
func (h *Handlers) report(format reportFormat) api.AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		id, err := httpapi.PathID(r, ids.Scan, ids.Valid, "Scan")
		if err != nil {
			return err
		}
		plan := plans.Plan(p.User.Plan)
		if !plan.AllowsReportFormat(format.name) {
			return apierr.New(apierr.Forbidden, "The %s report is not available on the %s plan; it needs the starter plan or higher",
				format.name, plan)
		}
		d, err := h.Store.GetScanDetail(r.Context(), p.User.ID, id)
		if err != nil {
			return err
		}
		now := h.Now()
		if err := available(d.Scan, plan, now); err != nil {
			return err
		}
		proof, err := h.proof(r.Context(), p.User.ID, d.Scan.TargetID)
		if err != nil {
			return err
		}
		var notRetested []string
		if d.Comparison != nil {
			notRetested = d.Comparison.NotRetested
		}
		body, err := format.render(h, report.Build(report.Input{Scan: d.Scan, Findings: d.Findings, Issues: d.Issues, Steps: d.Steps, Surface: d.Surface,
			Watermarked: plan == plans.Free, GeneratedAt: now, Verification: proof, NotRetested: notRetested}), r)
		if err != nil {
			return err
		}
		format.write(w, ReportFileName(d.Scan, format.name), body)
		return nil
	}
}

// available is the 409 of a scan that has not completed, and the 410 of a
// report past the plan's retention at now.
func available(sc scans.Scan, plan plans.Plan, now time.Time) error {
	if sc.Status != scans.Completed {
		return apierr.New(apierr.Conflict, "Scan %s is %s; reports are available once it has completed", sc.ID, sc.Status)
	}
	if days := plan.ReportRetentionDays(); days > 0 && now.Sub(sc.FinishedAt) > time.Duration(days)*24*time.Hour {
		return apierr.New(apierr.Gone, "Report expired: %s-plan reports are kept for %d days after the scan finished", plan, days)
	}
	return nil
}

// proof is how ownership of the scan's target was proven, for the scope
// statement; nil for a target deleted since the scan (no longer on file).
func (h *Handlers) proof(ctx context.Context, userID, targetID string) (*report.Verification, error) {
	t, err := h.Store.GetTarget(ctx, userID, targetID)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	proof := &report.Verification{Method: t.Method}
	if t.VerifiedAt != nil {
		proof.VerifiedAt = *t.VerifiedAt
	}
	return proof, nil
}

// write sends body as a download named name.
func (format reportFormat) write(w http.ResponseWriter, name string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", format.contentType)
	h.Set("Content-Disposition", ContentDisposition(name))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	// Reports hold a customer's weaknesses: never cached on the way.
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if format.name == "html" {
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// ReportFileName is the file name a report of sc downloads as (CONTRACT
// "Reports"): "<domain>-<YYYY-MM-DD>-<scan id>.<ext>", e.g.
// "demo.secscan.test-2026-11-20-scn_01J….pdf". The date is the day the scan
// was created (created_at, UTC): the day it was asked for, known for every
// scan and the same for all its reports, whereas a scan that runs past
// midnight would otherwise be filed under the day it finished. The target
// is a validated DNS name and the id a ULID, so the name is plain ASCII;
// anything else is replaced all the same (fileNameSafe).
func ReportFileName(sc scans.Scan, ext string) string {
	return fileNameSafe(sc.Target) + "-" + sc.CreatedAt.UTC().Format("2006-01-02") + "-" + fileNameSafe(sc.ID) + "." + fileNameSafe(ext)
}

// fileNameSafe keeps the letters, digits, '.', '-' and '_' of s and replaces
// every other byte with '_': no quote, backslash, separator or control
// character can reach the header or the reader's file system.
func fileNameSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
		default:
			b[i] = '_'
		}
	}
	out := strings.TrimLeft(string(b), ".")
	if out == "" {
		return "report"
	}
	return out
}

// ContentDisposition is the header value that downloads a file as name:
// the quoted-string form of RFC 6266, its quotes and backslashes escaped.
func ContentDisposition(name string) string {
	return `attachment; filename="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
}
