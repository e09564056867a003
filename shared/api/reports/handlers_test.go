package reports

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/auth"
	"secscan/shared/dependency"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/report"
	"secscan/shared/scans"
	"secscan/shared/store"
)

var now = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// memStore is the report endpoints' Store in memory: scans and targets are
// their owner's only, and down makes every read fail as DynamoDB's would.
type memStore struct {
	scans   map[string]scans.Scan
	targets map[string]store.Target
	down    map[string]error
}

var dbDown = &store.UnavailableError{Op: "Query", Err: dependency.Unavailable(dependency.Database, errors.New("timeout"))}

func (m *memStore) GetScanDetail(_ context.Context, userID, id string) (store.ScanDetail, error) {
	sc, ok := m.scans[id]
	switch {
	case m.down["GetScanDetail"] != nil:
		return store.ScanDetail{}, m.down["GetScanDetail"]
	case !ok || sc.UserID != userID:
		return store.ScanDetail{}, &store.NotFoundError{Kind: "scan", ID: id}
	}
	return store.ScanDetail{Scan: sc}, nil
}

func (m *memStore) GetTarget(_ context.Context, userID, id string) (store.Target, error) {
	t, ok := m.targets[id]
	switch {
	case m.down["GetTarget"] != nil:
		return t, m.down["GetTarget"]
	case !ok || t.UserID != userID:
		return store.Target{}, &store.NotFoundError{Kind: "target", ID: id}
	}
	return t, nil
}

// reportRig is alice's completed scan of her target, finished a day ago,
// and her running one; papers lists the PDFs rendered.
type reportRig struct {
	m             *memStore
	h             *Handlers
	alice         string
	done, running scans.Scan
	papers        []report.Paper
	bobs          scans.Scan
}

func newReportRig() *reportRig {
	rig := &reportRig{m: &memStore{scans: map[string]scans.Scan{}, targets: map[string]store.Target{}, down: map[string]error{}},
		alice: ids.New(ids.User, now)}
	tgt := store.Target{ID: ids.New(ids.Target, now), UserID: rig.alice, Domain: "ok.example", Method: "dns_txt", VerifiedAt: &now}
	rig.m.targets[tgt.ID] = tgt
	scan := func(owner string, status scans.Status) scans.Scan {
		sc := scans.Scan{ID: ids.New(ids.Scan, now), UserID: owner, TargetID: tgt.ID, Target: tgt.Domain, Type: scans.Web,
			Tier: "quick", Status: status, CreatedAt: now.Add(-25 * time.Hour), FinishedAt: now.Add(-24 * time.Hour)}
		rig.m.scans[sc.ID] = sc
		return sc
	}
	rig.done, rig.running = scan(rig.alice, scans.Completed), scan(rig.alice, scans.Running)
	rig.bobs = scan(ids.New(ids.User, now), scans.Completed)
	rig.h = &Handlers{Store: rig.m, Now: func() time.Time { return now }, RenderPDF: func(_ report.Report, p report.Paper) ([]byte, error) {
		rig.papers = append(rig.papers, p)
		return []byte("%PDF"), nil
	}}
	return rig
}

// get runs format's handler for alice on plan, as Authenticated would.
func (rig *reportRig) get(format reportFormat, plan, target, id string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r = r.WithContext(httpapi.WithLogger(r.Context(), slog.New(slog.DiscardHandler)))
	r.SetPathValue("id", id)
	w := httptest.NewRecorder()
	p := auth.Principal{User: store.User{ID: rig.alice, Plan: plan}, Via: auth.ViaSession}
	if err := rig.h.report(format)(w, r, p); err != nil {
		httpapi.WriteError(w, r, err)
	}
	return w
}

// want checks an answer's status and that its body holds part.
func want(t *testing.T, w *httptest.ResponseRecorder, status int, part string) {
	t.Helper()
	if w.Code != status || !strings.Contains(w.Body.String(), part) {
		t.Errorf("status %d, want %d; body %s (want it to hold %q)", w.Code, status, w.Body, part)
	}
}

func TestReportDownloads(t *testing.T) {
	t.Parallel()
	rig := newReportRig()
	name := ReportFileName(rig.done, "md")

	w := rig.get(markdownReport, "free", "/", rig.done.ID)
	want(t, w, http.StatusOK, "ok.example")
	h := w.Header()
	if h.Get("Content-Type") != "text/markdown; charset=utf-8" || h.Get("Content-Disposition") != ContentDisposition(name) ||
		h.Get("Cache-Control") != "private, no-store" || h.Get("Content-Length") != strconv.Itoa(w.Body.Len()) || h.Get("Content-Security-Policy") != "" {
		t.Errorf("markdown headers %v", h)
	}
	if w := rig.get(htmlReport, "starter", "/", rig.done.ID); w.Code != http.StatusOK || w.Header().Get("Content-Security-Policy") == "" {
		t.Errorf("html: %d, CSP %q", w.Code, w.Header().Get("Content-Security-Policy"))
	}
	want(t, rig.get(csvReport, "pro", "/", rig.done.ID), http.StatusOK, "")
	want(t, rig.get(pdfReport, "pro", "/?paper=letter", rig.done.ID), http.StatusOK, "%PDF")
	want(t, rig.get(pdfReport, "pro", "/", rig.done.ID), http.StatusOK, "%PDF")
	if len(rig.papers) != 2 || rig.papers[0] != report.Letter || rig.papers[1] != report.A4 {
		t.Errorf("papers rendered %v", rig.papers)
	}

	// A target deleted since the scan still has its report.
	delete(rig.m.targets, rig.done.TargetID)
	want(t, rig.get(markdownReport, "pro", "/", rig.done.ID), http.StatusOK, "")
}

func TestReportRefusals(t *testing.T) {
	t.Parallel()
	rig := newReportRig()
	old := rig.done
	old.ID, old.FinishedAt = ids.New(ids.Scan, now), now.Add(-8*24*time.Hour)
	rig.m.scans[old.ID] = old

	for _, tc := range []struct {
		format       reportFormat
		plan, target string
		id           string
		status       int
		detail       string
	}{
		{pdfReport, "free", "/", rig.done.ID, 403, "The pdf report is not available on the free plan; it needs the starter plan or higher"},
		{csvReport, "free", "/", "nope", 404, `Scan \"nope\" not found`},
		{markdownReport, "pro", "/", rig.bobs.ID, 404, "Scan " + rig.bobs.ID + " not found"},
		{markdownReport, "pro", "/", rig.running.ID, 409, "Scan " + rig.running.ID + " is running; reports are available once it has completed"},
		{markdownReport, "free", "/", old.ID, 410, "Report expired: free-plan reports are kept for 7 days after the scan finished"},
		{pdfReport, "pro", "/?paper=a3", rig.done.ID, 422, "paper: must be a4 or letter"},
	} {
		want(t, rig.get(tc.format, tc.plan, tc.target, tc.id), tc.status, tc.detail)
	}
	// A paid plan keeps its reports.
	want(t, rig.get(markdownReport, "starter", "/", old.ID), http.StatusOK, "")

	for _, op := range []string{"GetScanDetail", "GetTarget"} {
		rig.m.down = map[string]error{op: dbDown}
		want(t, rig.get(markdownReport, "pro", "/", rig.done.ID), http.StatusServiceUnavailable, "The database is unavailable; retry shortly")
	}
}

// Building an endpoint without what it needs stops the process then (cold
// start), not at the first request.
func TestReportEndpointsNeedTheirDependencies(t *testing.T) {
	t.Parallel()
	full := &Handlers{Store: &memStore{}, Auth: &auth.Authenticator{}, Now: time.Now}
	for name, build := range map[string]func() http.Handler{
		"without RenderPDF": full.PDF,
		"without Store":     (&Handlers{Auth: full.Auth, Now: full.Now}).Markdown,
		"without Auth":      (&Handlers{Store: full.Store, Now: full.Now}).CSV,
		"without Now":       (&Handlers{Store: full.Store, Auth: full.Auth}).HTML,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			build()
		}()
	}
	if full.Markdown() == nil {
		t.Error("no markdown endpoint")
	}
}
