package code

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// ruleDatabaseURL is this package's own rule: gitleaks' default rules have
// none for connection strings, the most common secret of a .env file.
const ruleDatabaseURL = "database-url"

// databaseURL matches a connection URL with a password in it.
var databaseURL = lazyre.New(`(?i)\b(postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver)://([^:@/\s'"]+):([^@/\s'"]{3,})@([^/\s'"]+)`)

// ScanConfigFile runs the secret detectors over the text of an exposed
// configuration file (an .env file, .git/config) served at u and returns
// one finding per credential type (an AWS key pair, a Stripe live key, a
// database URL, ...), each with every place it was seen, redacted: what a
// reader of the file gets, type by type. resp, when given, is the answer
// the file came in: each finding's proof, its secrets redacted.
func ScanConfigFile(ctx context.Context, u *url.URL, text string, resp *httpprobe.Response) ([]scans.Finding, error) {
	det, err := sharedDetector()
	if err != nil {
		return nil, err
	}
	f := &file{kind: kindConfig, url: u, valid: true, read: len(text), resp: resp}
	doc := document{where: display(u), pathHint: u.Path, firstLine: 1, firstColumn: 1, text: text}
	f.sightings, f.dropped = scanDocument(ctx, det, doc)
	f.sightings = append(f.sightings, databaseURLs(doc)...)
	c := &collector{files: []*file{f}}
	var out []scans.Finding
	for _, g := range c.groups() {
		fd := g.finding()
		fd.Confidence = scans.Certain // the file was served and the value read
		out = append(out, fd)
	}
	return out, nil
}

// databaseURLs are the connection URLs with passwords in doc, redacted.
func databaseURLs(doc document) []sighting {
	lines := newlines(doc.text)
	var out []sighting
	for _, m := range databaseURL.FindAllStringSubmatchIndex(doc.text, 20) {
		password := doc.text[m[6]:m[7]]
		if strings.HasPrefix(password, "$") || strings.HasPrefix(password, "{") || strings.EqualFold(password, "password") {
			continue // a placeholder or a variable
		}
		line, col := doc.position(lines, m[0])
		scheme, user, host := doc.text[m[2]:m[3]], doc.text[m[4]:m[5]], doc.text[m[8]:m[9]]
		out = append(out, sighting{
			where: doc.where, rule: ruleDatabaseURL,
			description: "Database connection URL with a password",
			id:          sha256.Sum256([]byte(doc.text[m[0]:m[1]])),
			redacted:    fmt.Sprintf("%s://%s:%s@%s", strings.ToLower(scheme), user, redact(password), host),
			raw:         password,
			line:        line, col: col, severity: scans.High,
		})
	}
	return out
}
