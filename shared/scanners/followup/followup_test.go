package followup

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

const (
	awsKeyID   = "AKIAZ7VQXKL3T5QHD2MP"
	awsSecret  = "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"
	stripeLive = "sk_live_51HqZk2Lx9Vb7Tm3Rc8Np4Wd6Ys0Ae1Kf"
	dbPassword = "Zq7-Pk2mXv9Lr4tW"
)

var time0 = time.Unix(0, 0)

func envFile() string {
	return "APP_ENV=production\nAWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret +
		"\nSTRIPE_SECRET=" + stripeLive + "\nDATABASE_URL=postgres://app:" + dbPassword + "@db.shop.test:5432/shop\n"
}

func run(t *testing.T, tool tools.Tool, env tools.Env, input string) tools.Result {
	t.Helper()
	res, err := tool.Run(context.Background(), env, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.Name(), input, err)
	}
	t.Logf("outcome: %s", res.Outcome)
	scantest.CheckFindings(t, tool, res.Findings)
	return res
}

// An exposed .env yields one code.secret finding listing every credential
// type, redacted (one finding per check, host and port: its fingerprint).
func TestFileSecretsOneFindingPerCredentialType(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.env" {
			fmt.Fprint(w, envFile())
			return
		}
		http.NotFound(w, r)
	}))
	res := run(t, NewFileSecrets(httpprobe.WithRootCAs(site.Roots)), site.Env, `{"url":"`+site.URL("https", "shop.test", "/.env")+`"}`)
	var titles []string
	if len(res.Findings) != 1 {
		t.Errorf("%d findings, want one", len(res.Findings))
	}
	for _, f := range res.Findings {
		titles = append(titles, f.Title, f.Evidence)
		if f.Check != checks.Secret.Code {
			t.Errorf("%s: check %q, want %s", f.Title, f.Check, checks.Secret.Code)
		}
		if f.Confidence != scans.Certain || f.Category != scans.CategoryCode || f.Host != "shop.test" {
			t.Errorf("%s: confidence %s, category %s, host %s", f.Title, f.Confidence, f.Category, f.Host)
		}
		if f.Proof == nil || f.Proof.Kind != scans.ProofHTTP || !strings.HasPrefix(f.Proof.Request, "GET /.env HTTP/1.1") {
			t.Errorf("%s: proof %+v", f.Title, f.Proof)
		}
	}
	for _, want := range []string{"AWS access key exposed in /.env", "Stripe secret key exposed in /.env", "Database connection URL with password exposed in /.env"} {
		if !strings.Contains(strings.Join(titles, "\n"), want) {
			t.Errorf("missing %q in %q", want, titles)
		}
	}
	raw, _ := json.Marshal(res.Findings)
	for _, secret := range []string{awsSecret[4:], stripeLive[12:], dbPassword[4:]} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("a secret is shown: %s", secret)
		}
	}
}

// A directory listing's dumps, archives and keys are reported when served,
// with size and type; other entries, other directories and other hosts are
// left alone, and at most a prefix is read.
func TestListingFiles(t *testing.T) {
	t.Parallel()
	var dump bytes.Buffer
	zw := gzip.NewWriter(&dump)
	fmt.Fprint(zw, "-- MySQL dump 10.13\nCREATE TABLE users (id int);\n"+strings.Repeat("INSERT INTO users VALUES (1);\n", 2000))
	zw.Close()
	var ranges []string
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/backup/":
			fmt.Fprint(w, `<html><h1>Index of /backup</h1><a href="../">Parent</a> <a href="db-2024.sql.gz">db-2024.sql.gz</a>
<a href="notes.txt">notes.txt</a> <a href="site.tar.gz">site.tar.gz</a> <a href="gone.bak">gone.bak</a>
<a href="https://evil.example/steal.sql">x</a> <a href="/other/secret.sql">y</a></html>`)
		case "/backup/db-2024.sql.gz":
			ranges = append(ranges, r.Header.Get("Range"))
			http.ServeContent(w, r, "db.sql.gz", time0, bytes.NewReader(dump.Bytes()))
		case "/backup/site.tar.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
		default:
			http.NotFound(w, r)
		}
	}))
	res := run(t, NewListingFiles(httpprobe.WithRootCAs(site.Roots)), site.Env, `{"url":"`+site.URL("https", "shop.test", "/backup/")+`"}`)
	// The dump and the archive, on one host and port: one finding listing
	// both, led by the more severe dump.
	if len(res.Findings) != 1 {
		t.Fatalf("findings %v, want the dump and the archive", res.Findings)
	}
	dumpF := res.Findings[0]
	if dumpF.Check != checks.ListedSensitiveFile.Code {
		t.Errorf("check %q, want %s", dumpF.Check, checks.ListedSensitiveFile.Code)
	}
	if !strings.HasPrefix(dumpF.Title, "Database dump downloadable from a directory listing: /backup/db-2024.sql.gz") ||
		dumpF.Severity != scans.Critical || dumpF.Confidence != scans.Certain ||
		!strings.Contains(dumpF.Evidence, strconv.Itoa(dump.Len())+" bytes") || !strings.Contains(dumpF.Evidence, "gzip-compressed data") {
		t.Errorf("dump finding: %+v", dumpF)
	}
	if len(ranges) != 1 || ranges[0] != "bytes=0-4095" {
		t.Errorf("range requests %v, want one bounded prefix", ranges)
	}
	if !strings.Contains(dumpF.Evidence, "Archive downloadable from a directory listing: /backup/site.tar.gz: ") {
		t.Errorf("the archive is not in the evidence: %s", dumpF.Evidence)
	}
}

// Redis answering INFO without a password gives its version to the surface
// and to the banners version_check reads.
func TestServiceInfoReadsRedisVersion(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64)
			n, _ := c.Read(buf)
			if strings.HasPrefix(string(buf[:n]), "INFO server") {
				body := "# Server\r\nredis_version:6.0.9\r\nredis_mode:standalone\r\nos:Linux\r\n"
				fmt.Fprintf(c, "$%d\r\n%s\r\n", len(body), body)
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	res := run(t, NewServiceInfo(), site.Env, fmt.Sprintf(`{"host":"shop.test","port":%d}`, port))
	if len(res.Surface.Services) != 1 || res.Surface.Services[0].Version != "6.0.9" || res.Surface.Services[0].Product != "Redis" {
		t.Fatalf("surface %+v", res.Surface.Services)
	}
	if len(res.Services) != 1 || !strings.Contains(res.Services[0].Banner, "redis_version:6.0.9") {
		t.Errorf("services %+v", res.Services)
	}
	if _, err := NewServiceInfo().Run(context.Background(), site.Env, json.RawMessage(`{"host":"evil.example","port":6379}`)); !tools.IsInputError(err) {
		t.Errorf("out-of-scope host: %v", err)
	}
}

// A vulnerable Apache answers the traversal with /etc/passwd: the CVE is
// confirmed (certain, with request and answer); a patched one is not.
func TestConfirmCVE(t *testing.T) {
	t.Parallel()
	vulnerable := true
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("method %s", r.Method)
		}
		if vulnerable && strings.Contains(r.RequestURI, "/.%2e/") && strings.HasSuffix(r.RequestURI, "/etc/passwd") {
			fmt.Fprint(w, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
			return
		}
		http.NotFound(w, r)
	}))
	port := site.Env.Ports.HTTPSPort()
	tool := NewConfirmCVE(httpprobe.WithRootCAs(site.Roots))
	// Asked about the group's most severe CVE-2021-42013, the 2.4.49
	// payload that works confirms CVE-2021-41773.
	res := run(t, tool, site.Env, fmt.Sprintf(`{"host":"shop.test","port":%d,"cve":"CVE-2021-42013"}`, port))
	if len(res.Findings) != 1 {
		t.Fatalf("findings %v", res.Findings)
	}
	f := res.Findings[0]
	if f.Confidence != scans.Certain || f.Severity != scans.Critical || *f.CVE != "CVE-2021-41773" ||
		!strings.Contains(f.Evidence, "Request: GET https://shop.test:") || !strings.Contains(f.Evidence, "root:x:0:0:") || strings.Contains(f.Evidence, "daemon") {
		t.Errorf("finding %+v", f)
	}
	if f.Check != checks.ConfirmedCVE.Code {
		t.Errorf("check %q, want %s", f.Check, checks.ConfirmedCVE.Code)
	}
	version := f
	version.Check, version.Confidence = checks.KnownCVE.Code, scans.Tentative
	if f.StableFingerprint() == version.StableFingerprint() {
		t.Error("the confirmed CVE shares the version match's fingerprint: it would not keep its own finding")
	}
	vulnerable = false
	if res := run(t, tool, site.Env, fmt.Sprintf(`{"host":"shop.test","port":%d,"cve":"CVE-2021-41773"}`, port)); len(res.Findings) != 0 {
		t.Errorf("patched server confirmed: %v", res.Findings)
	}
	if _, err := tool.Run(context.Background(), site.Env, json.RawMessage(`{"host":"shop.test","port":443,"cve":"CVE-2014-0160"}`)); !tools.IsInputError(err) {
		t.Errorf("unknown CVE: %v", err)
	}
}
