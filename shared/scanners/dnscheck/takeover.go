package dnscheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver"
	"secscan/shared/safetext"
	"secscan/shared/scans"
)

// commonSubdomains are the names checked for dangling aliases besides the
// domain itself: the ones most often pointed at hosted services. With the
// domain they stay within maxAliasNames.
var commonSubdomains = []string{
	"www", "mail", "app", "api", "dev", "staging", "test", "blog", "shop",
	"cdn", "static", "assets", "old", "beta", "docs", "status", "portal",
}

const maxAliasNames = 20

// takeoverService is a hosting service where customers pick their own
// name under suffix, so a name there that no longer exists can be claimed
// by anyone.
type takeoverService struct {
	suffix  string
	service string
}

// takeoverServices are services known to let anyone register a released
// name (after EdOverflow's can-i-take-over-xyz list and the providers'
// own guidance). Only the DNS side is used: an alias into one of them whose
// target is NXDOMAIN.
var takeoverServices = []takeoverService{
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

// takeoverServiceOf returns the service a name is hosted at, or "". The
// name must be strictly below the service's suffix. Regional S3 endpoints
// (bucket.s3.eu-west-1.amazonaws.com, bucket.s3-website-us-east-1...)
// count as S3.
func takeoverServiceOf(name string) string {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	for _, s := range takeoverServices {
		if strings.HasSuffix(name, "."+s.suffix) {
			return s.service
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

// aliasNames are the names checked for dangling aliases: domain and the
// common subdomains under it, at most maxAliasNames.
func aliasNames(domain string) []string {
	names := []string{domain}
	for _, prefix := range commonSubdomains {
		if len(names) == maxAliasNames {
			break
		}
		if name := prefix + "." + domain; len(name) <= 253 {
			names = append(names, name)
		}
	}
	return names
}

// alias is what the checks learnt about one name's CNAME.
type alias struct {
	name   string
	target string // the CNAME target, canonical; "" when the name has none
	err    error  // the CNAME query failed: nothing is known

	// After resolving the target (only when there is one):
	chain       []string // target, then the chain the resolver followed
	rcode       int
	resolveErr  error
	service     string // the takeover-prone service on the chain, or ""
	serviceName string // the chain's name under that service
}

// lookupAliases asks for the CNAME of every name, at most concurrency at
// a time.
func lookupAliases(ctx context.Context, q *querier, names []string) []alias {
	out := make([]alias, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			out[i].name = name
			a, err := q.query(ctx, name, dns.TypeCNAME)
			if err != nil {
				out[i].err = err
				return
			}
			for _, rr := range a.Records {
				if c, ok := rr.(*dns.CNAME); ok {
					out[i].target = dns.CanonicalName(c.Target)
					return
				}
			}
		})
	}
	wg.Wait()
	return out
}

// resolveTargets resolves (A, through the resolver; never a connection) the
// target of every alias that has one, and notes which service on the chain
// is takeover-prone.
func resolveTargets(ctx context.Context, q *querier, aliases []alias) {
	var wg sync.WaitGroup
	for i := range aliases {
		a := &aliases[i]
		if a.target == "" {
			continue
		}
		wg.Go(func() {
			ans, err := q.query(ctx, a.target, dns.TypeA)
			a.chain = append([]string{a.target}, ans.CNAMEs...)
			a.rcode, a.resolveErr = ans.Rcode, err
			for _, name := range a.chain {
				if service := takeoverServiceOf(name); service != "" {
					a.service, a.serviceName = service, name
					break
				}
			}
		})
	}
	wg.Wait()
}

// maxAliasesShown caps the names listed in one dangling-CNAME finding.
const maxAliasesShown = 5

// danglingAliases reports aliases whose chain reaches a takeover-prone
// service and ends in NXDOMAIN: one finding per dead target (a wildcard
// record makes every checked name an alias of the same target).
func (r *report) danglingAliases(aliases []alias) {
	s := sortAliases(aliases)
	for _, g := range s.groups {
		r.findings = append(r.findings, g.finding())
	}
	note := fmt.Sprintf("CNAMEs: %d of %d names are aliases", s.withCNAME, s.checked)
	if len(s.groups) > 0 {
		note += fmt.Sprintf(", %d dangling", len(s.groups))
	}
	if s.failed > 0 {
		note += fmt.Sprintf(", %d not checked", s.failed)
	}
	r.notes = append(r.notes, note)
}

// danglingGroup is the names whose alias chains end at one dead target.
type danglingGroup struct {
	service string
	names   []string
	chain   []string
}

// aliasTally is what the alias lookups of a call found.
type aliasTally struct {
	checked, withCNAME, failed int
	groups                     []*danglingGroup // in order of first appearance
}

// sortAliases counts the aliases and groups the dangling ones by target.
func sortAliases(aliases []alias) aliasTally {
	var s aliasTally
	byTarget := map[string]*danglingGroup{}
	for _, a := range aliases {
		if a.err != nil {
			s.failed++
			continue
		}
		s.checked++
		if a.target == "" {
			continue
		}
		s.withCNAME++
		if a.dangling() {
			s.addDangling(a, byTarget)
		}
	}
	return s
}

// dangling reports an alias whose chain ends in a name that does not
// exist at a service where names can be claimed.
func (a alias) dangling() bool {
	return a.resolveErr == nil && a.rcode == dns.RcodeNameError && a.service != ""
}

// addDangling adds a dangling alias to the group of its chain's last
// target (byTarget), starting the group when it is the first.
func (s *aliasTally) addDangling(a alias, byTarget map[string]*danglingGroup) {
	last := a.chain[len(a.chain)-1]
	g, ok := byTarget[last]
	if !ok {
		g = &danglingGroup{service: a.service, chain: a.chain}
		byTarget[last] = g
		s.groups = append(s.groups, g)
	}
	g.names = append(g.names, a.name)
}

// finding is the dangling-CNAME finding of the group's first name.
func (g *danglingGroup) finding() scans.Finding {
	evidence := fmt.Sprintf("%s → %s → NXDOMAIN (CNAME chain through the configured resolver; %s has no such name)",
		g.names[0], strings.Join(trimDots(g.chain), " → "), g.service)
	if len(g.names) > 1 {
		shown := g.names[1:min(len(g.names), maxAliasesShown)]
		evidence += fmt.Sprintf("; the same target is the alias of %s", strings.Join(shown, ", "))
		if extra := len(g.names) - 1 - len(shown); extra > 0 {
			evidence += fmt.Sprintf(" and %d more", extra)
		}
	}
	f := danglingCNAME(g.service, g.names[0], safetext.Line(evidence, 2*maxShown))
	// The alias's target does not resolve: strong indirect evidence that
	// it can be claimed, not a claim made.
	f.Confidence = scans.Firm
	f.Proof = cnameProof(g.names[0], trimDots(g.chain), time.Now())
	return f
}

func trimDots(names []string) []string {
	out := slices.Clone(names)
	for i, n := range out {
		out[i] = strings.TrimSuffix(n, ".")
	}
	return out
}

// querier bounds how many of one call's queries are in flight, so a call
// does not flood the resolver.
type querier struct {
	res *resolver.Resolver
	sem chan struct{}
}

func newQuerier(res *resolver.Resolver, concurrency int) *querier {
	return &querier{res: res, sem: make(chan struct{}, concurrency)}
}

func (q *querier) query(ctx context.Context, name string, qtype uint16) (resolver.Answer, error) {
	select {
	case q.sem <- struct{}{}:
	case <-ctx.Done():
		return resolver.Answer{}, ctx.Err()
	}
	defer func() { <-q.sem }()
	return q.res.Query(ctx, name, qtype)
}
