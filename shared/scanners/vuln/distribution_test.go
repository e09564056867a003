package vuln

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
)

// TestDistributionBuilds: a banner with a distribution's package revision
// yields one informational vuln.distribution-build finding listing the
// upstream CVEs for reference, never upstream version-range known-cve
// findings or an end-of-life claim; a distribution's name alone (no
// revision) keeps the CVE matches but drops the upstream end-of-life
// claim; the same upstream version without any marker is matched as before.
func TestDistributionBuilds(t *testing.T) {
	t.Parallel()
	site := scantest.NewSite(t, "dist.test", netguard.Policy{AllowPrivate: true}, nil, nil)
	site.Env.Known = []scans.Service{
		{Host: "dist.test", Port: 22, Name: "ssh", Banner: "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10"},
		{Host: "dist.test", Port: 2201, Name: "ssh", Banner: "SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6"},
		{Host: "dist.test", Port: 2202, Name: "ssh", Banner: "SSH-2.0-OpenSSH_9.2p1"},
		{Host: "dist.test", Port: 8443, Name: "http", Banner: "HTTP/1.1 200 OK | Server: Apache/2.4.62 (Debian) OpenSSL/3.0.15"},
		{Host: "dist.test", Port: 8444, Name: "http", Banner: "HTTP/1.1 200 OK | Server: Apache/2.4.62 OpenSSL/3.0.15"},
		{Host: "dist.test", Port: 3306, Name: "mysql", Banner: "MySQL protocol 10 greeting, server version 10.5.23-MariaDB-0+deb11u1"},
	}
	clock := withClock(func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := New(clock).Run(ctx, site.Env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	scantest.CheckFindings(t, New(), res.Findings)
	t.Logf("outcome: %s", res.Outcome)
	byPort := map[int][]scans.Finding{}
	for _, f := range res.Findings {
		byPort[*f.Port] = append(byPort[*f.Port], f)
	}

	// Debian 12's OpenSSH: regreSSHion and Terrapin only for reference.
	deb := byPort[22]
	if len(deb) != 1 || deb[0].Check != checks.DistributionBuild.Code {
		t.Fatalf("Debian build: %d findings %+v, want one %s", len(deb), deb, checks.DistributionBuild.Code)
	}
	f := deb[0]
	if f.Severity != scans.Info || f.CVE != nil || f.CVSS != nil ||
		f.Title != "OpenSSH 9.2p1, Debian build Debian-2+deb12u10: CVE status depends on the package version" {
		t.Errorf("Debian build finding: %+v", f)
	}
	for _, cve := range []string{"CVE-2024-6387", "CVE-2023-48795"} {
		if !strings.Contains(f.Evidence, cve) || !strings.Contains(strings.Join(f.References, " "), cve) {
			t.Errorf("Debian build: %s not listed for reference: %s", cve, f.Evidence)
		}
	}
	if !strings.Contains(f.Evidence, "for reference only") {
		t.Errorf("evidence: %s", f.Evidence)
	}
	// Ubuntu's: likewise.
	if ub := byPort[2201]; len(ub) != 1 || ub[0].Check != checks.DistributionBuild.Code || !strings.Contains(ub[0].Title, "Ubuntu build Ubuntu-3ubuntu0.6") {
		t.Errorf("Ubuntu build: %+v", ub)
	}
	// The same upstream version without a revision: matched as before.
	up := byPort[2202]
	if len(up) != 1 || up[0].Check != checks.KnownCVE.Code || !strings.Contains(up[0].Evidence, "CVE-2024-6387") {
		t.Errorf("upstream OpenSSH 9.2p1: %+v", up)
	}
	// OpenSSL 3.0 behind a Debian Server header: no end-of-life claim; the
	// same header without the marker: the upstream end of life (2026-09-07).
	eol := func(fs []scans.Finding) bool {
		for _, f := range fs {
			if f.Check == "vuln.end-of-life.openssl" {
				return true
			}
		}
		return false
	}
	if eol(byPort[8443]) {
		t.Errorf("OpenSSL 3.0 reported end of life on a Debian build: %+v", byPort[8443])
	}
	if !eol(byPort[8444]) {
		t.Errorf("upstream OpenSSL 3.0 not reported end of life: %+v", byPort[8444])
	}
	if !strings.Contains(res.Outcome, "not reported for a Debian build") {
		t.Errorf("outcome does not say why the end of life was not reported: %s", res.Outcome)
	}
	// MariaDB 10.5 from Debian 11: no upstream end-of-life claim.
	for _, f := range byPort[3306] {
		if strings.HasPrefix(string(f.Check), "vuln.end-of-life") || f.Check == checks.KnownCVE.Code {
			t.Errorf("MariaDB Debian build: %s %s", f.Check, f.Title)
		}
	}
	for _, f := range res.Findings {
		if f.Check == checks.KnownCVE.Code && f.CVE != nil && *f.Port != 2202 && *f.Port != 8443 && *f.Port != 8444 {
			t.Errorf("known-cve on a distribution build: %s on port %d", f.Title, *f.Port)
		}
	}
}
