package code

import (
	"strings"
	"testing"

	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
)

// Every secret finding is proven by the response the secret came in, its
// excerpt centred on the secret, which is redacted there as in the
// evidence.
func TestSecretFindingsProof(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "leaky.test", allow, nil, newFileServer(leakyFiles()))
	res := run(t, site, `{}`)
	if len(res.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range res.Findings {
		p := f.Proof
		if p == nil || p.Kind != scans.ProofHTTP || !strings.HasPrefix(p.Request, "GET /") || !strings.HasPrefix(p.Response, "HTTP/1.1 200 OK\n") || p.Curl == nil {
			t.Errorf("%s: proof %+v", f.Title, p)
			continue
		}
		if !strings.Contains(p.Response, "… (") {
			t.Errorf("%s: the excerpt shows no redacted secret:\n%s", f.Title, p.Response)
		}
		for _, s := range leakySecrets() {
			if strings.Contains(p.Request+p.Response+*p.Curl, s) {
				t.Errorf("%s: proof leaks %q:\n%s", f.Title, s, p.Response)
			}
		}
	}
}
