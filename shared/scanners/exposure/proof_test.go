package exposure

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
)

// Every exposed file is proven by its request and answer, with the planted
// secrets redacted in the proof as in the evidence.
func TestExposedFilesProof(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) < 10 {
		t.Fatalf("only %d findings", len(res.Findings))
	}
	byCheck := map[scans.CheckCode]*scans.Proof{}
	for _, f := range res.Findings {
		p := f.Proof
		if p == nil {
			t.Errorf("%s: no proof", f.Title)
			continue
		}
		byCheck[f.Check] = p
		if p.Kind != scans.ProofHTTP || !strings.HasPrefix(p.Request, "GET /") || !strings.Contains(p.Request, "\nHost: weak.test:") ||
			!strings.Contains(p.Request, "\nUser-Agent: secscan/") || !strings.HasPrefix(p.Response, "HTTP/1.1 200 OK\n") {
			t.Errorf("%s: proof %+v", f.Title, p)
		}
		if p.Curl == nil || !strings.HasPrefix(*p.Curl, "curl -i --path-as-is ") || !strings.Contains(*p.Curl, "'https://weak.test:") {
			t.Errorf("%s: curl %v", f.Title, p.Curl)
		}
		if p.ObservedAt.IsZero() || len([]rune(p.Response)) > scans.MaxProofResponse {
			t.Errorf("%s: observed %v, response %d chars", f.Title, p.ObservedAt, len([]rune(p.Response)))
		}
		for _, s := range secrets {
			if strings.Contains(p.Request+p.Response+*p.Curl, s) {
				t.Errorf("%s: proof leaks %q:\n%s", f.Title, s, p.Response)
			}
		}
	}
	if p := byCheck["web.exposed-env"]; p == nil || !strings.Contains(p.Response, "DB_PASSWORD=hunt… (14 chars)") {
		t.Errorf(".env proof does not show the redacted assignment: %+v", p)
	}
	if p := byCheck["web.exposed-backup-archive"]; p == nil || !strings.Contains(p.Response, "(binary body, ") || !strings.Contains(p.Response, "50 4b 03 04") {
		t.Errorf("archive proof does not show the magic bytes: %+v", p)
	}
}

// A source map's proof shows the map itself: it is code, not a settings
// file, so only what looks like a secret is redacted.
func TestSourceMapProofIsReadable(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "weak.test", netguard.Policy{AllowPrivate: true}, nil, weakHandler())
	res, err := New(httpprobe.WithRootCAs(site.Roots)).Run(context.Background(), site.Env, json.RawMessage(`{"paths": ["*.js.map"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Proof == nil || !strings.Contains(res.Findings[0].Proof.Response, `"sources":["webpack:///src/app.ts"]`) {
		t.Errorf("source map proof: %+v", res.Findings)
	}
}
