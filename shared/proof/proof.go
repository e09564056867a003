package proof

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"secscan/shared/scans"
)

// Bounds of the parts of an HTTP proof.
const (
	// maxHeaderValue bounds one header value shown.
	maxHeaderValue = 200
	// maxHeaders bounds the headers shown on either side.
	maxHeaders = 24
	// excerptBefore is how much of the body before the evidence is shown.
	excerptBefore = 400
)

// shownResponseHeaders are the response headers that matter to a finding:
// what the content is, where it redirects, who serves it, and the security
// headers the web checks judge. Others are left out to keep the proof short.
var shownResponseHeaders = []string{
	"Content-Type", "Content-Length", "Location", "Server", "X-Powered-By",
	"Strict-Transport-Security", "Content-Security-Policy", "Content-Security-Policy-Report-Only",
	"X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Permissions-Policy",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Set-Cookie",
	"WWW-Authenticate", "X-Elastic-Product", "Docker-Distribution-Api-Version", "Api-Version",
}

// HTTPExchange is one HTTP request and what came back, as a tool saw it.
type HTTPExchange struct {
	Method string
	URL    *url.URL
	// RequestHeader is every header sent (Host excluded: it comes from URL).
	RequestHeader http.Header
	// Proto is the response's protocol, e.g. "HTTP/1.1"; empty means that.
	Proto  string
	Status int
	Header http.Header
	Body   []byte
	// BodySize is the body's full size when Body is a truncated read; zero
	// means len(Body).
	BodySize int
	// Needle is the evidence in the body the excerpt is centred on; empty
	// means the body's start.
	Needle string
	// Insecure is an https answer whose certificate did not verify (the
	// curl line then needs --insecure).
	Insecure bool
	// Secrets are values the tool found, redacted wherever they appear.
	Secrets []string
	At      time.Time
}

// HTTP returns the proof of an HTTP exchange.
func HTTP(x HTTPExchange) *scans.Proof {
	method := x.Method
	if method == "" {
		method = http.MethodGet
	}
	req := Bound(Redact(Clean(requestText(method, x.URL, x.RequestHeader)), x.Secrets...), scans.MaxProofRequest)
	head := Redact(Clean(responseHead(x)), x.Secrets...)
	budget := scans.MaxProofResponse - len([]rune(head)) - 2
	body := ""
	if budget > 40 && len(x.Body) > 0 {
		body = "\n\n" + excerpt(x.Body, x.BodySize, x.Needle, budget, x.Secrets)
	}
	curl := Curl(method, x.URL, x.RequestHeader, x.Insecure)
	return &scans.Proof{
		Kind:       scans.ProofHTTP,
		Request:    req,
		Response:   Bound(head+body, scans.MaxProofResponse),
		ObservedAt: at(x.At),
		Curl:       &curl,
	}
}

// Transcript returns the proof of a protocol exchange: request is what the
// tool sent (or did, e.g. "connect, send nothing"), response what the
// service answered.
func Transcript(request, response string, observedAt time.Time, secrets ...string) *scans.Proof {
	return &scans.Proof{
		Kind:       scans.ProofTranscript,
		Request:    Bound(Redact(Clean(request), secrets...), scans.MaxProofRequest),
		Response:   Bound(Redact(Clean(response), secrets...), scans.MaxProofResponse),
		ObservedAt: at(observedAt),
	}
}

func at(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Second)
}

func requestText(method string, u *url.URL, h http.Header) string {
	var b strings.Builder
	target := "/"
	if u != nil {
		target = u.RequestURI()
	}
	b.WriteString(method + " " + target + " HTTP/1.1\n")
	if u != nil {
		b.WriteString("Host: " + u.Host + "\n")
	}
	writeHeaders(&b, h, nil)
	return strings.TrimRight(b.String(), "\n")
}

func responseHead(x HTTPExchange) string {
	proto := x.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	var b strings.Builder
	b.WriteString(proto + " " + strconv.Itoa(x.Status) + " " + http.StatusText(x.Status) + "\n")
	writeHeaders(&b, x.Header, shownResponseHeaders)
	return strings.TrimRight(b.String(), "\n")
}

// writeHeaders writes h sorted by name (only the names in only, when
// given), each value bounded, at most maxHeaders lines.
func writeHeaders(b *strings.Builder, h http.Header, only []string) {
	lines := 0
	for _, name := range headerNames(h, only) {
		for _, v := range h[name] {
			if lines == maxHeaders {
				b.WriteString("…\n")
				return
			}
			b.WriteString(http.CanonicalHeaderKey(name) + ": " + Bound(v, maxHeaderValue) + "\n")
			lines++
		}
	}
}

// headerNames are h's names, sorted; only those in only (any case), when
// given.
func headerNames(h http.Header, only []string) []string {
	names := make([]string, 0, len(h))
	for name := range h {
		if only == nil || slices.ContainsFunc(only, func(o string) bool { return strings.EqualFold(o, name) }) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// excerpt is at most budget characters of body around needle, redacted.
func excerpt(body []byte, size int, needle string, budget int, secrets []string) string {
	if size < len(body) {
		size = len(body)
	}
	start := excerptStart(body, needle)
	if binary(body[start:min(len(body), start+512)]) {
		return describeBinary(body[start:], size)
	}
	// Read twice the budget, so redaction (which may shorten) sees whole
	// secrets before the cut.
	end := min(len(body), start+2*budget)
	text := Redact(Clean(string(body[start:end])), secrets...)
	if start > 0 {
		text = "…" + text
	}
	if end < size {
		text += "…"
	}
	return Bound(text, budget)
}

// excerptStart is where an excerpt of body begins: a little before the
// first needle (exact, else in any case), or at the start.
func excerptStart(body []byte, needle string) int {
	if needle == "" {
		return 0
	}
	i := bytes.Index(body, []byte(needle))
	if i < 0 {
		i = bytes.Index(bytes.ToLower(body), bytes.ToLower([]byte(needle)))
	}
	if i < 0 {
		return 0
	}
	return max(0, i-excerptBefore)
}
