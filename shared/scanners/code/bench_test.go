package code

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/scantest"
)

// BenchmarkDetectorSetup measures building the detector from gitleaks'
// default rules, which sharedDetector does once per process.
func BenchmarkDetectorSetup(b *testing.B) {
	for b.Loop() {
		if _, err := buildDetector(); err != nil {
			b.Fatal(err)
		}
	}
}

// minifiedBundle returns about n bytes of minified-looking JavaScript on
// one line (seed varies it): identifiers, property names that gitleaks' keywords hit (key,
// token, auth, api), hashes and ids, without a secret.
func minifiedBundle(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 2))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	word := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		return string(b)
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, `function %s(e,t){var n=e.apiKey||t.token;return n&&e.auth?n.key:null}`, "f"+word(3))
		case 1:
			fmt.Fprintf(&b, `var %s={id:"%s",hash:"%x",className:"css-%s"};`, "v"+word(2), word(12), r.Uint64(), word(7))
		case 2:
			fmt.Fprintf(&b, `e.exports={key:"componentDidMount",value:function(){this.setState({loaded:!0})}};`)
		case 3:
			fmt.Fprintf(&b, `n.d(t,{Z:function(){return %s}});`, "o"+word(2))
		case 4:
			fmt.Fprintf(&b, `{1:"%s",2:"%s"}[e]+".chunk.js";`, word(8), word(8))
		default:
			fmt.Fprintf(&b, `if(!r.accessToken)throw new Error("Missing auth token for %s");`, word(6))
		}
	}
	return b.String()[:n]
}

// BenchmarkScan1MiB measures scanning 1 MiB of minified JavaScript, the
// most one file may bring.
func BenchmarkScan1MiB(b *testing.B) {
	det, err := sharedDetector()
	if err != nil {
		b.Fatal(err)
	}
	doc := document{where: "bench", pathHint: "/static/js/main.js", firstLine: 1, firstColumn: 1, text: minifiedBundle(1<<20, 1), code: true}
	b.SetBytes(int64(len(doc.text)))
	for b.Loop() {
		if found, _ := scanDocument(context.Background(), det, doc); len(found) != 0 {
			b.Fatalf("%d findings in the benchmark bundle", len(found))
		}
	}
}

// BenchmarkCodeScan measures the whole tool against the leaky site.
func BenchmarkCodeScan(b *testing.B) {
	site := scantest.NewSite(b, "leaky.test", allow, nil, newFileServer(leakyFiles()))
	tool := New(httpprobe.WithRootCAs(site.Roots))
	for b.Loop() {
		res, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{}`))
		if err != nil || len(res.Findings) != 4 {
			b.Fatalf("Run: %d findings, %v", len(res.Findings), err)
		}
	}
}

// BenchmarkCodeScanFullBudget measures the worst case of one call: four
// 1 MiB minified bundles that spend the whole byte budget, scanned at
// once by the workers.
func BenchmarkCodeScanFullBudget(b *testing.B) {
	files := map[string]string{}
	page := "<html><head>"
	for i := range 4 {
		name := fmt.Sprintf("/static/js/chunk%d.js", i)
		files[name] = minifiedBundle(maxFileBytes-1024, uint64(i))
		page += `<script src="` + name + `"></script>`
	}
	files["/"] = page + "</head></html>"
	site := scantest.NewSite(b, "big.test", allow, newFileServer(files), nil)
	tool := New()
	for b.Loop() {
		res, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{}`))
		if err != nil || len(res.Findings) != 0 || !strings.Contains(res.Outcome, "4 scripts") {
			b.Fatalf("Run: %v, %s", err, res.Outcome)
		}
	}
}
