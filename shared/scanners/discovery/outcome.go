package discovery

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"secscan/shared/scanners/internal/takeover"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// result is the call's result: the hosts, the names outside the scope,
// the wildcard findings and an outcome that sums them up.
func (d *discovery) result(hosts []scans.Host) tools.Result {
	outside := slices.Sorted(maps.Keys(d.outside))
	res := tools.Result{Surface: scans.Surface{Hosts: hosts, OutOfScopeNames: outside, OutOfScope: len(outside)},
		Findings: d.wildcardFindings()}
	for _, f := range res.Findings {
		d.notes = append(d.notes, "wildcard DNS: *."+f.Host+" answers for any label")
	}
	// In the names' order, so the same zone gives the same findings.
	slices.SortFunc(d.dangling, func(a, b takeover.Alias) int { return strings.Compare(a.Name, b.Name) })
	for _, f := range takeover.Findings(d.dangling) {
		res.Findings = append(res.Findings, f)
		d.notes = append(d.notes, "dangling CNAME: "+f.Host+" (possible subdomain takeover)")
	}
	res.Outcome = hostsInScope(hosts) + outsideScope(len(outside)) + d.outcomeNotes(hosts)
	return res
}

// outcomeNotes are the outcome's notes after the counts of names: how
// much of the deep wordlist was tried, the names dropped as wildcard
// answers, the hosts aliased outside the scope, then the call's notes.
func (d *discovery) outcomeNotes(hosts []scans.Host) string {
	var out string
	if d.deep {
		out += fmt.Sprintf("; deep wordlist: %d of %d labels tried", d.tried, len(d.labels))
	}
	if d.wildcards > 0 {
		out += fmt.Sprintf("; %d wordlist names dropped as wildcard answers", d.wildcards)
	}
	if aliased := len(slices.DeleteFunc(slices.Clone(hosts), func(h scans.Host) bool { return h.CNAME == "" })); aliased > 0 {
		out += fmt.Sprintf("; %d hosts aliased outside the scope get HTTP(S) checks only", aliased)
	}
	slices.Sort(d.notes)
	for _, n := range d.notes {
		out += "; " + n
	}
	return out
}

// hostsInScope counts the hosts and names the first 20.
func hostsInScope(hosts []scans.Host) string {
	out := fmt.Sprintf("%d hosts in scope", len(hosts))
	if len(hosts) == 0 {
		return out
	}
	names := make([]string, 0, min(len(hosts), 20))
	for _, h := range hosts[:min(len(hosts), 20)] {
		names = append(names, h.Name)
	}
	out += ": " + strings.Join(names, ", ")
	if len(hosts) > len(names) {
		out += fmt.Sprintf(" and %d more", len(hosts)-len(names))
	}
	return out
}

// outsideScope is the outcome's note on the n names seen outside the
// scope ("" when none).
func outsideScope(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "; 1 name outside the scope seen, not contacted"
	}
	return fmt.Sprintf("; %d names outside the scope seen, not contacted", n)
}
