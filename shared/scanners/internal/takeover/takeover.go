// Package takeover recognises dangling aliases: an in-scope name whose
// CNAME chain reaches a hosting service where customers pick their own
// name, and ends in a name that does not exist (NXDOMAIN), so anyone can
// claim it and serve content under the domain. It is DNS only: the
// service is never contacted. dns_check uses it for the names it checks,
// discover_hosts for every name it learns, so a name the scan knows is
// checked whichever step learnt it.
package takeover

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/checks"
	"secscan/shared/proof"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// service is a hosting service where customers pick their own name under
// suffix, so a name there that no longer exists can be claimed by anyone.
type service struct {
	suffix string
	name   string
}

// services are services known to let anyone register a released name
// (after EdOverflow's can-i-take-over-xyz list and the providers' own
// guidance). Only the DNS side is used: an alias into one of them whose
// target is NXDOMAIN.
var services = []service{
	{"s3.amazonaws.com", "Amazon S3"},
	{"cloudfront.net", "Amazon CloudFront"},
	{"elasticbeanstalk.com", "AWS Elastic Beanstalk"},
	{"herokuapp.com", "Heroku"},
	{"herokudns.com", "Heroku"},
	{"github.io", "GitHub Pages"},
	{"azurewebsites.net", "Azure App Service"},
	{"cloudapp.net", "Azure Cloud Services"},
	{"cloudapp.azure.com", "Azure virtual machines"},
	{"trafficmanager.net", "Azure Traffic Manager"},
	{"blob.core.windows.net", "Azure Blob Storage"},
	{"azureedge.net", "Azure CDN"},
	{"azurefd.net", "Azure Front Door"},
	{"azure-api.net", "Azure API Management"},
	{"azurestaticapps.net", "Azure Static Web Apps"},
	{"wordpress.com", "WordPress.com"},
	{"pantheonsite.io", "Pantheon"},
	{"netlify.app", "Netlify"},
	{"netlify.com", "Netlify"},
	{"fastly.net", "Fastly"},
	{"ghost.io", "Ghost"},
	{"surge.sh", "Surge"},
	{"bitbucket.io", "Bitbucket"},
	{"readthedocs.io", "Read the Docs"},
	{"zendesk.com", "Zendesk"},
	{"myshopify.com", "Shopify"},
	{"helpscoutdocs.com", "Help Scout"},
	{"uservoice.com", "UserVoice"},
}

// ServiceOf returns the service a name is hosted at, or "". The name must
// be strictly below the service's suffix. Regional S3 endpoints
// (bucket.s3.eu-west-1.amazonaws.com, bucket.s3-website-us-east-1...)
// count as S3.
func ServiceOf(name string) string {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	for _, s := range services {
		if strings.HasSuffix(name, "."+s.suffix) {
			return s.name
		}
	}
	if rest, ok := strings.CutSuffix(name, ".amazonaws.com"); ok {
		labels := strings.Split(rest, ".")
		for _, label := range labels[1:] { // the first label is the bucket
			if label == "s3" || strings.HasPrefix(label, "s3-") {
				return "Amazon S3"
			}
		}
	}
	return ""
}

// Alias is a dangling alias: Name's CNAME chain (Chain, the targets in
// order as the resolver followed them) reaches Service and ends in a name
// that does not exist.
type Alias struct {
	Name    string
	Chain   []string
	Service string
}

// Dangling returns the dangling alias of name when the answer to its
// lookup (chain: the CNAME targets followed, rcode: the answer's, about
// the chain's last name) ends in NXDOMAIN at a takeover-prone service.
func Dangling(name string, chain []string, rcode int) (Alias, bool) {
	if len(chain) == 0 || rcode != dns.RcodeNameError {
		return Alias{}, false
	}
	for _, target := range chain {
		if s := ServiceOf(target); s != "" {
			return Alias{Name: strings.TrimSuffix(strings.ToLower(name), "."), Chain: slices.Clone(chain), Service: s}, true
		}
	}
	return Alias{}, false
}

// MaxNamesShown caps the names listed in one finding.
const MaxNamesShown = 5

// maxEvidence caps a finding's evidence.
const maxEvidence = 600

// group is the dangling aliases whose chains end at one dead target.
type group struct {
	service string
	names   []string
	chain   []string
}

// Findings are the dns.dangling-cname findings of aliases: one per dead
// target (a wildcard record makes every name an alias of the same target),
// on its first name in the order given, listing the others.
func Findings(aliases []Alias) []scans.Finding {
	var groups []*group
	byTarget := map[string]*group{}
	for _, a := range aliases {
		last := a.Chain[len(a.Chain)-1]
		g, ok := byTarget[last]
		if !ok {
			g = &group{service: a.Service, chain: a.Chain}
			byTarget[last] = g
			groups = append(groups, g)
		}
		if !slices.Contains(g.names, a.Name) {
			g.names = append(g.names, a.Name)
		}
	}
	out := make([]scans.Finding, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.finding(time.Now()))
	}
	return out
}

// finding is the dangling-CNAME finding of the group's first name.
func (g *group) finding(at time.Time) scans.Finding {
	chain := trimDots(g.chain)
	evidence := fmt.Sprintf("%s → %s → NXDOMAIN (CNAME chain through the configured resolver; %s has no such name)",
		g.names[0], strings.Join(chain, " → "), g.service)
	if len(g.names) > 1 {
		shown := g.names[1:min(len(g.names), MaxNamesShown)]
		evidence += fmt.Sprintf("; the same target is the alias of %s", strings.Join(shown, ", "))
		if extra := len(g.names) - 1 - len(shown); extra > 0 {
			evidence += fmt.Sprintf(" and %d more", extra)
		}
	}
	f := checks.DanglingCNAME.Finding(g.names[0], nil, safetext.Line(evidence, maxEvidence))
	f.Title = "Dangling CNAME to " + g.service + " (possible subdomain takeover)"
	// The alias's target does not resolve: strong indirect evidence that
	// it can be claimed, not a claim made.
	f.Confidence = scans.Firm
	f.Proof = cnameProof(g.names[0], chain, at)
	return f
}

// cnameProof is the transcript of a dangling alias: the chain followed and
// the final NXDOMAIN.
func cnameProof(name string, chain []string, at time.Time) *scans.Proof {
	var lines []string
	prev := name
	for _, c := range chain {
		lines = append(lines, fmt.Sprintf("%s CNAME %s", prev, c))
		prev = c
	}
	lines = append(lines, prev+": NXDOMAIN")
	return proof.Transcript(fmt.Sprintf("DNS query: %s IN A (through the configured resolver, CNAMEs followed)", name), strings.Join(lines, "\n"), at)
}

func trimDots(names []string) []string {
	out := slices.Clone(names)
	for i, n := range out {
		out[i] = strings.TrimSuffix(n, ".")
	}
	return out
}
