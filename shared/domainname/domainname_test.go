package domainname

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	label63 := strings.Repeat("a", 63)
	// 4 labels of 63 + "com" = 4*64 + 3 = 259 characters.
	tooLong := strings.Join([]string{label63, label63, label63, label63, "com"}, ".")
	// 3*64 + 61 = 253 characters: the longest allowed.
	longest := strings.Join([]string{label63, label63, label63, strings.Repeat("b", 57) + ".com"}, ".")

	tests := []struct {
		in      string
		want    string // when valid
		wantErr string // substring of the error when invalid
	}{
		// Valid, with normalization.
		{in: "example.com", want: "example.com"},
		{in: "EXAMPLE.com.", want: "example.com"},
		{in: "  Sub.Example.COM  ", want: "sub.example.com"},
		{in: "a.b.c.example.co.uk", want: "a.b.c.example.co.uk"},
		{in: "bücher.de", want: "xn--bcher-kva.de"},
		{in: "BÜCHER.de", want: "xn--bcher-kva.de"},
		{in: "xn--bcher-kva.de", want: "xn--bcher-kva.de"},
		{in: "münchen.example.com", want: "xn--mnchen-3ya.example.com"},
		{in: "пример.рф", want: "xn--e1afmkfd.xn--p1ai"},
		{in: "faß.de", want: "xn--fa-hia.de"},                         // non-transitional: ß is kept
		{in: "ｅｘａｍｐｌｅ．ｃｏｍ", want: "example.com"},                      // fullwidth forms map to ASCII
		{in: "ex\u200bample.com", want: "example.com"},                // UTS #46 drops zero-width space, as browsers do
		{in: "ex\u200dample.com", wantErr: "not a valid domain name"}, // a joiner outside its context is refused
		{in: "my-site.example", want: "my-site.example"},
		{in: "123.example.com", want: "123.example.com"},
		{in: "a.io", want: "a.io"},
		{in: longest, want: longest},
		{in: label63 + ".com", want: label63 + ".com"},

		// Refused.
		{in: "", wantErr: "is empty"},
		{in: "   ", wantErr: "is empty"},
		{in: ".", wantErr: "not a domain name"},
		{in: "https://example.com", wantErr: `"https://example.com" is a URL; give only the domain name, e.g. example.com`},
		{in: "http://Example.com/login?x=1", wantErr: "e.g. example.com"},
		{in: "//example.com", wantErr: "is a URL"},
		{in: "example.com/path", wantErr: "contains a path, query or fragment; give only the domain name, e.g. example.com"},
		{in: "example.com?q=1", wantErr: "contains a path, query or fragment"},
		{in: "example.com#top", wantErr: "contains a path, query or fragment"},
		{in: `example.com\evil`, wantErr: "contains a path, query or fragment"},
		{in: "example.com:443", wantErr: "contains a port or a colon; give only the domain name, e.g. example.com"},
		{in: "user@example.com", wantErr: `contains "@"`},
		{in: "user:pw@example.com", wantErr: `contains "@"`},
		{in: "*.example.com", wantErr: "is a wildcard"},
		{in: "www.*.example.com", wantErr: "is a wildcard"},
		{in: "1.2.3.4", wantErr: "is an IP address"},
		{in: "1.2.3.4.", wantErr: "is an IP address"},
		{in: "::1", wantErr: "is an IP address"},
		{in: "2001:db8::1", wantErr: "is an IP address"},
		{in: "[::1]", wantErr: "is an IP address"},
		{in: "[2001:db8::1]", wantErr: "is an IP address"},
		{in: "127.1", wantErr: "numeric label"},
		{in: "example.0x7f", wantErr: "numeric label"},
		{in: "localhost", wantErr: `"localhost" is a single label; give a full domain name such as example.com`},
		{in: "com.", wantErr: "single label"},
		{in: "bücher", wantErr: "single label"},
		{in: tooLong, wantErr: "at most 253 characters (this one has 259)"},
		{in: strings.Repeat("a", 64) + ".com", wantErr: "label longer than 63 characters"},
		{in: "example..com", wantErr: "empty label"},
		{in: ".example.com", wantErr: "empty label"},
		{in: "example.com..", wantErr: "empty label"},
		{in: "-example.com", wantErr: "starts or ends with a hyphen"},
		{in: "example-.com", wantErr: "starts or ends with a hyphen"},
		{in: "_dmarc.example.com", wantErr: "underscore"},
		{in: "exa_mple.com", wantErr: "underscore"},
		{in: "exa mple.com", wantErr: "contains spaces"},
		{in: "example\x00.com", wantErr: "control characters"},
		{in: "exa!mple.com", wantErr: "not a valid domain name"},
		{in: "exa%41mple.com", wantErr: "not a valid domain name"},
		{in: "ab--cd.com", wantErr: "not a valid domain name"}, // reserved "--" in positions 3-4
		{in: "xn--zzzz-.com", wantErr: "hyphen"},
		{in: "xn--a.com", wantErr: "not a valid domain name"},        // broken punycode
		{in: "example.com／path", wantErr: "not a valid domain name"}, // fullwidth solidus
		{in: strings.Repeat("a.", 600) + "com", wantErr: "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(tt.in)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				// Normalizing is idempotent.
				if again, err := Normalize(got); err != nil || again != got {
					t.Errorf("Normalize(%q) = %q, %v; want it unchanged", got, again, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Normalize(%q) = %q, want an error mentioning %q", tt.in, got, tt.wantErr)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Normalize(%q) error %v does not match ErrInvalid", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Normalize(%q) = %q, want it to mention %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestInScope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host, domain string
		want         bool
	}{
		{"example.com", "example.com", true},
		{"www.example.com", "example.com", true},
		{"a.b.example.com", "example.com", true},
		{"WWW.Example.COM.", "example.com", true},
		{"www.example.com", "EXAMPLE.com.", true},
		{"xn--bcher-kva.de", "bücher.de", true},
		{"shop.bücher.de", "xn--bcher-kva.de", true},
		{"badexample.com", "example.com", false},
		{"example.com.evil.net", "example.com", false},
		{"example.com", "www.example.com", false},
		{"com", "example.com", false},
		{"example.co", "example.com", false},
		{"example.com:443", "example.com", false},
		{"", "example.com", false},
		{"example.com", "", false},
		{".example.com", "example.com", false},
		{"a..example.com", "example.com", false},
		{"127.0.0.1", "example.com", false},
	}
	for _, tt := range tests {
		if got := InScope(tt.host, tt.domain); got != tt.want {
			t.Errorf("InScope(%q, %q) = %v, want %v", tt.host, tt.domain, got, tt.want)
		}
	}
}
