package report_test

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"secscan/shared/report"
	"secscan/shared/scans"
)

// hostileProof is proof text a target controls: a longer backtick run than
// any fence, a closing </pre>, script and image tags, a Markdown link and a
// terminal escape.
const hostileProofBody = "```````\n</pre><script>alert(1)</script><img src=x onerror=alert(2)>\n[click](javascript:alert(3))\n\x1b[2Jcleared"

func proofReport() report.Report {
	curl := "curl -i --path-as-is 'https://shop.example/'"
	f := scans.Finding{
		ID: "fnd_1", Title: "Exposed environment file", Severity: scans.High, Confidence: scans.Certain,
		Host: "shop.example", Evidence: "GET /.env → 200", Check: "web.exposed-env", Issue: "web.exposed-env",
		Proof: &scans.Proof{Kind: scans.ProofHTTP, Request: "GET /.env HTTP/1.1\nHost: shop.example",
			Response: "HTTP/1.1 200 OK\n\n" + hostileProofBody, ObservedAt: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC), Curl: &curl},
	}
	return report.Build(report.Input{Scan: scans.Scan{ID: "scn_p", Target: "shop.example", Type: scans.Web, Status: scans.Completed}, Findings: []scans.Finding{f}})
}

func TestProofInMarkdownIsOneCodeBlock(t *testing.T) {
	t.Parallel()
	md := report.Markdown(proofReport())
	if !strings.Contains(string(md), "\n````````text\nProof: HTTP exchange, observed 2026-11-26T10:00:00Z\n") {
		t.Fatalf("proof not fenced by 8 backticks:\n%s", md)
	}
	doc := mdRender(t, md)
	var proof string
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.Data {
		case "script", "img", "a":
			t.Errorf("proof text became a <%s> element", n.Data)
		case "code":
			if text := nodeText(n); strings.Contains(text, "Proof: HTTP exchange") {
				proof = text
			}
		}
	}
	for _, want := range []string{"```````\n</pre><script>alert(1)</script>", "[click](javascript:alert(3))", "\uFFFD[2Jcleared", "Repeat with:\ncurl -i --path-as-is 'https://shop.example/'"} {
		if !strings.Contains(proof, want) {
			t.Errorf("the proof code block lacks %q:\n%s", want, proof)
		}
	}
	if strings.ContainsRune(string(md), 0x1b) {
		t.Error("a raw escape character reached the Markdown")
	}
}

func TestProofInHTMLIsEscapedMonospace(t *testing.T) {
	t.Parallel()
	page := report.HTML(proofReport())
	checkHTMLPage(t, page)
	doc, err := html.Parse(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && (n.Data == "img" || n.Data == "script" && nodeText(n) != "" && strings.Contains(nodeText(n), "alert")) {
			t.Errorf("proof text became a <%s> element", n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "pre" && attr(n, "class") == "proof" {
			found = strings.Contains(nodeText(n), hostileProofBody[:len(hostileProofBody)-len("\x1b[2Jcleared")])
		}
	}
	if !found {
		t.Errorf("no <pre class=proof> with the proof text:\n%s", page)
	}
	if strings.ContainsRune(string(page), 0x1b) {
		t.Error("a raw escape character reached the HTML")
	}
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}
