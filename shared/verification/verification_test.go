package verification

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver"
	"secscan/shared/resolver/resolvertest"
)

func TestNewToken(t *testing.T) {
	t.Parallel()
	format := regexp.MustCompile(`^service-verify-[0-9A-Za-z]{33}$`)
	seen := make(map[string]bool)
	for range 200 {
		tok, err := NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if !format.MatchString(tok) {
			t.Fatalf("token %q does not match %s", tok, format)
		}
		if seen[tok] {
			t.Fatalf("token %q repeated", tok)
		}
		seen[tok] = true
	}
}

func TestInstructions(t *testing.T) {
	t.Parallel()
	const token = "service-verify-abc123"
	dnsText := Instructions(MethodDNSTXT, "example.com", token, "tgt_01H")
	for _, want := range []string{"_service-challenge.example.com", "TXT", "Value: " + token} {
		if !strings.Contains(dnsText, want) {
			t.Errorf("dns_txt instructions lack %q:\n%s", want, dnsText)
		}
	}
	httpText := Instructions(MethodHTTPFile, "example.com", token, "tgt_01H")
	for _, want := range []string{
		"https://example.com/.well-known/service-challenge.txt",
		"Content: " + token,
		"printf '%s' " + token + " > .well-known/service-challenge.txt",
		"http://",
	} {
		if !strings.Contains(httpText, want) {
			t.Errorf("http_file instructions lack %q:\n%s", want, httpText)
		}
	}
	for _, text := range []string{dnsText, httpText} {
		if !strings.HasSuffix(text, "then call POST /api/targets/tgt_01H/verify") {
			t.Errorf("instructions do not end with the verify call:\n%s", text)
		}
	}
	if got := Instructions(MethodDNSTXT, "example.com", token, ""); !strings.HasSuffix(got, "POST /api/targets/<id>/verify") {
		t.Errorf("instructions without id:\n%s", got)
	}
	if got := Instructions("carrier_pigeon", "example.com", token, "x"); got != "" {
		t.Errorf("unknown method gave %q", got)
	}
}

func TestQuoteSanitizes(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"plain":                    `"plain"`,
		"with \"quotes\"":          `"with \"quotes\""`,
		"esc\x1b[31mred\x00\n":     `"esc[31mred"`,
		"bidi\u202eoverride":       `"bidioverride"`,
		"bad\xffutf8":              `"badutf8"`,
		strings.Repeat("x", 100):   `"` + strings.Repeat("x", 64) + `…"`,
		strings.Repeat("ü", 64):    `"` + strings.Repeat("ü", 64) + `"`,
		"":                         `""`,
		"\u00a0nbsp and tab\there": `"\u00a0nbsp and tabhere"`, // strconv.Quote escapes non-printable spaces
	}
	for in, want := range tests {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestVerifyDNSTXT(t *testing.T) {
	t.Parallel()
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	srv := resolvertest.Start(t)
	long := strings.Repeat("L", 100)
	srv.Add(t,
		fmt.Sprintf(`_service-challenge.ok.test. TXT "v=spf1 -all"`),
		fmt.Sprintf(`_service-challenge.ok.test. TXT "%s"`, token),
		// One record split into two character-strings is one value.
		fmt.Sprintf(`_service-challenge.split.test. TXT "%s" "%s"`, token[:20], token[20:]),
		`_service-challenge.wrong.test. TXT "nope"`,
		`_service-challenge.multi.test. TXT "v=spf1 -all"`,
		fmt.Sprintf(`_service-challenge.multi.test. TXT "%s"`, long),
		fmt.Sprintf(`_service-challenge.padded.test. TXT " %s"`, token),
		fmt.Sprintf(`_service-challenge.prefix.test. TXT "%sX"`, token),
		`_service-challenge.evil.test. TXT "esc\027[31mred"`,
		"notxt.test. A 127.0.0.1",
		"_service-challenge.notxt.test. A 127.0.0.1",
		"nx.test. A 127.0.0.1",
	)
	for i := range 7 {
		srv.Add(t, fmt.Sprintf(`_service-challenge.seven.test. TXT "value-%d"`, i))
	}
	srv.SetRcode("_service-challenge.servfail.test.", dns.RcodeServerFailure)
	srv.Hang("_service-challenge.hang.test.")
	res, err := resolver.New(srv.Addr, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	v := &Verifier{Resolver: res}

	tests := []struct {
		domain string
		want   string // "" means verified; else the exact Failure detail
	}{
		{"ok.test", ""},
		{"OK.test.", ""},
		{"split.test", ""},
		{"wrong.test", `TXT records at _service-challenge.wrong.test: found 1 value ("nope") but none equals the verification token`},
		{"multi.test", `TXT records at _service-challenge.multi.test: found 2 values ("v=spf1 -all", "` + strings.Repeat("L", 64) + `…") but none equals the verification token`},
		{"seven.test", `TXT records at _service-challenge.seven.test: found 7 values ("value-0", "value-1", "value-2", "value-3", "value-4", and 2 more) but none equals the verification token`},
		{"padded.test", `TXT records at _service-challenge.padded.test: found 1 value (" ` + token + `") but none equals the verification token`},
		{"prefix.test", `TXT records at _service-challenge.prefix.test: found 1 value ("` + token + `X") but none equals the verification token`},
		{"evil.test", `TXT records at _service-challenge.evil.test: found 1 value ("esc[31mred") but none equals the verification token`},
		{"nx.test", "No TXT record at _service-challenge.nx.test (NXDOMAIN)"},
		{"missing.test", "No TXT record at _service-challenge.missing.test (NXDOMAIN)"},
		{"notxt.test", "No TXT record at _service-challenge.notxt.test (the name exists but has no TXT record)"},
		{"servfail.test", "No TXT record at _service-challenge.servfail.test (DNS server answered SERVFAIL)"},
		{"hang.test", "No TXT record at _service-challenge.hang.test (the DNS query timed out)"},
	}
	for _, tt := range tests {
		t.Run(tt.domain, func(t *testing.T) {
			t.Parallel()
			err := v.Verify(context.Background(), MethodDNSTXT, tt.domain, token)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Verify(%s) = %v, want success", tt.domain, err)
				}
				return
			}
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("Verify(%s) = %v (%T), want *Failure", tt.domain, err, err)
			}
			if f.Detail != tt.want {
				t.Errorf("Verify(%s) detail\n got: %s\nwant: %s", tt.domain, f.Detail, tt.want)
			}
		})
	}
}

func TestVerifyPlainErrors(t *testing.T) {
	t.Parallel()
	srv := resolvertest.Start(t)
	srv.Hang("_service-challenge.hang.test.")
	res, err := resolver.New(srv.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	deadRes, err := resolver.New("127.0.0.1:1", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name     string
		v        *Verifier
		ctx      context.Context
		method   string
		domain   string
		token    string
		wantText string
	}{
		{"unknown method", &Verifier{Resolver: res}, context.Background(), "email", "example.test", "t", "unknown method"},
		{"empty token", &Verifier{Resolver: res}, context.Background(), MethodDNSTXT, "example.test", "", "empty token"},
		{"bad domain", &Verifier{Resolver: res}, context.Background(), MethodDNSTXT, "https://example.test", "t", "is a URL"},
		{"no resolver", &Verifier{}, context.Background(), MethodDNSTXT, "example.test", "t", "no resolver"},
		{"no dialer", &Verifier{}, context.Background(), MethodHTTPFile, "example.test", "t", "no dialer"},
		{"resolver down", &Verifier{Resolver: deadRes}, context.Background(), MethodDNSTXT, "example.test", "t", "verify example.test"},
		{"cancelled", &Verifier{Resolver: res}, cancelled, MethodDNSTXT, "hang.test", "t", "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.v.Verify(tt.ctx, tt.method, tt.domain, tt.token)
			var f *Failure
			if err == nil || errors.As(err, &f) {
				t.Fatalf("Verify = %v, want a plain error", err)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Verify = %q, want it to mention %q", err, tt.wantText)
			}
		})
	}
}
