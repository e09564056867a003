package reports_test

import (
	"mime"
	"testing"
	"time"

	"secscan/shared/api/reports"
	"secscan/shared/scans"
)

// TestReportFileName: reports download as <domain>-<YYYY-MM-DD>-<scan id>.<ext>,
// dated by created_at in UTC, and the header value is a quoted string that
// a standard parser reads back exactly, whatever the record holds.
func TestReportFileName(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("UTC+10", 10*3600)
	cases := []struct {
		scan scans.Scan
		ext  string
		want string
	}{
		{scans.Scan{ID: "scn_01JDEMO0000000000000000000", Target: "demo.secscan.test",
			CreatedAt: time.Date(2026, 11, 20, 23, 59, 0, 0, time.UTC), FinishedAt: time.Date(2026, 11, 21, 0, 3, 0, 0, time.UTC)},
			"pdf", "demo.secscan.test-2026-11-20-scn_01JDEMO0000000000000000000.pdf"},
		// 08:00 on the 21st in UTC+10 is the 20th in UTC.
		{scans.Scan{ID: "scn_x", Target: "xn--bcher-kva.example", CreatedAt: time.Date(2026, 11, 21, 8, 0, 0, 0, east)},
			"csv", "xn--bcher-kva.example-2026-11-20-scn_x.csv"},
		// A record that is not what validation promises still cannot break
		// out of the quoted string or name a path.
		{scans.Scan{ID: `scn_"; filename=evil.exe`, Target: `../evil\"host`, CreatedAt: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
			"md", "_evil__host-2026-01-02-scn____filename_evil.exe.md"},
	}
	for _, c := range cases {
		name := reports.ReportFileName(c.scan, c.ext)
		if name != c.want {
			t.Errorf("ReportFileName = %q, want %q", name, c.want)
		}
		header := reports.ContentDisposition(name)
		if header != `attachment; filename="`+c.want+`"` {
			t.Errorf("Content-Disposition %q", header)
		}
		disp, params, err := mime.ParseMediaType(header)
		if err != nil || disp != "attachment" || params["filename"] != c.want || len(params) != 1 {
			t.Errorf("%q parses as %q %v %v", header, disp, params, err)
		}
	}
	// Quotes and backslashes in a name are escaped, not cut.
	h := reports.ContentDisposition(`a"b\c.pdf`)
	if _, params, err := mime.ParseMediaType(h); err != nil || params["filename"] != `a"b\c.pdf` {
		t.Errorf("%q parses as %v %v", h, params, err)
	}
}
