package planner

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/domainname"
	"secscan/shared/scans"
)

// followUps are the calls findings ask for: the files a directory listing
// shows, the credentials in an exposed configuration file, the version of a
// cache answering without a password, and a safe confirmation of a
// critical version match. Every one is a probe, so none is planned on a
// name aliased outside the scope (its tools refuse it: a version read from
// the vendor's banner is not confirmed against the vendor).
func followUps(s State, hosts []scans.Host) []Call {
	selected, aliased := map[string]bool{}, map[string]bool{}
	for _, h := range hosts {
		selected[h.Name] = true
	}
	for _, h := range append(slices.Clone(s.Surface.Hosts), hosts...) {
		if h.CNAME != "" {
			aliased[h.Name] = true
		}
	}
	fc := followUpCalls{domain: s.Scan.Target, seen: map[string]bool{}, service: serviceKeys(s, hosts), aliased: aliased}
	fs := slices.Clone(s.Findings)
	slices.SortFunc(fs, func(a, b scans.Finding) int { return strings.Compare(a.ID, b.ID) })
	for _, f := range fs {
		if (selected[f.Host] || f.Host == s.Scan.Target) && !aliased[f.Host] {
			fc.finding(f)
		}
	}
	return fc.out
}

// followUpCalls collects the follow-up calls, each once.
type followUpCalls struct {
	domain string
	out    []Call
	seen   map[string]bool // call keys, and service reads by service and CVE
	// A service answers the same whichever name reaches its address: a
	// service read or a CVE confirmation runs once per address and port.
	service func(host string, port int) string
	// aliased are the names aliased outside the scope: no follow-up.
	aliased map[string]bool
}

// finding adds the follow-up the finding f calls for, if any.
func (fc *followUpCalls) finding(f scans.Finding) {
	kind := followUpOf(f)
	if read, ok := urlFollowUps[kind]; ok {
		if u := evidenceURL(f, fc.domain); u != "" && !fc.aliased[urlHost(u)] {
			fc.add(f.Host, read.why, read.tool, map[string]any{"url": u})
		}
		return
	}
	switch kind {
	case followServiceInfo:
		fc.addService(f, "read the version of the unauthenticated service", ServiceInfo, map[string]any{})
	case followConfirm:
		if cve := confirmableCVE(f); cve != "" {
			f.CVE = &cve
			fc.addService(f, "safe read-only confirmation of "+cve, ConfirmCVE, map[string]any{"cve": cve})
		}
	}
}

// urlFollowUps are the follow-ups that read the URL a finding's evidence
// names.
var urlFollowUps = map[followUp]struct{ why, tool string }{
	followListing: {"classify the files the directory listing shows", ListingFiles},
	followSecrets: {"which credentials the exposed file leaks", FileSecrets},
}

// add adds a call unless the same call is there.
func (fc *followUpCalls) add(host, why, tool string, input map[string]any) {
	c := Call{Tool: tool, Input: encode(input), Host: host, Why: why}
	if k := callKey(c.Tool, c.Input); !fc.seen[k] {
		fc.seen[k] = true
		fc.out = append(fc.out, c)
	}
}

// addService adds a call to the service of finding f (none without a
// port), once per service and CVE.
func (fc *followUpCalls) addService(f scans.Finding, why, tool string, input map[string]any) {
	if f.Port == nil {
		return
	}
	input["host"], input["port"] = f.Host, *f.Port
	k := tool + " " + fc.service(f.Host, *f.Port) + " " + deref(f.CVE)
	if !fc.seen[k] {
		fc.seen[k] = true
		fc.add(f.Host, why, tool, input)
	}
}

// serviceKeys returns what identifies the service on host:port: its first
// address and the port when the host is known with addresses, else the
// name and the port.
func serviceKeys(s State, hosts []scans.Host) func(host string, port int) string {
	addr := map[string]string{}
	for _, h := range append(slices.Clone(s.Surface.Hosts), hosts...) {
		if len(h.Addresses) > 0 && h.CNAME == "" {
			addr[h.Name] = firstAddress(h)
		}
	}
	return func(host string, port int) string {
		return cmp.Or(addr[host], "name:"+host) + ":" + strconv.Itoa(port)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

type followUp int

const (
	followNone followUp = iota
	followListing
	followSecrets
	followServiceInfo
	followConfirm
)

// Confirmable are the CVEs confirm_cve can confirm safely (read-only).
var Confirmable = []string{"CVE-2021-41773", "CVE-2021-42013"}

// followUpOf says which follow-up a finding calls for, from its title and
// CVE (titles are fixed per check, so they are stable).
func followUpOf(f scans.Finding) followUp {
	t := strings.ToLower(f.Title)
	switch {
	case strings.Contains(t, "directory listing"):
		return followListing
	case containsAny(t, ".env", "environment file", "git repository", "configuration file"):
		if f.Category == scans.CategoryWeb || f.Category == scans.CategoryCode {
			return followSecrets
		}
	case containsAny(t, "redis", "memcached") && strings.Contains(t, "without authentication"):
		return followServiceInfo
	case f.Confidence != scans.Certain && confirmableCVE(f) != "":
		return followConfirm
	}
	return followNone
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// confirmableCVE is the first CVE of a finding (its cve, then those its
// evidence lists, as a grouped version match does) that has a safe
// confirmation.
func confirmableCVE(f scans.Finding) string {
	if f.CVE != nil && slices.Contains(Confirmable, *f.CVE) {
		return *f.CVE
	}
	if f.Category != scans.CategoryVuln {
		return ""
	}
	for _, c := range Confirmable {
		if strings.Contains(f.Evidence, c) {
			return c
		}
	}
	return ""
}

// urlHost is the host name of the URL u, lowercased.
func urlHost(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(parsed.Hostname())
}

// evidenceURL is the in-scope URL a finding's evidence names first.
func evidenceURL(f scans.Finding, domain string) string {
	for _, field := range strings.Fields(f.Evidence) {
		if !strings.HasPrefix(field, "http://") && !strings.HasPrefix(field, "https://") {
			continue
		}
		field = strings.TrimRight(field, ".,;:)\"'")
		u, err := url.Parse(field)
		if err != nil || !domainname.InScope(u.Hostname(), domain) {
			continue
		}
		u.RawQuery, u.Fragment = "", ""
		return u.String()
	}
	return ""
}
