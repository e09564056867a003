package plans

// Limits are what one scan of a tier may do besides spending its credits:
// the playbook plans within them, and the tools and the model's checks
// refuse inputs beyond them, so a model's proposal cannot make a standard
// scan do what only the deep tier pays for.
type Limits struct {
	// Hosts is how many discovered host names a scan tests; Addresses how
	// many distinct addresses its port scans probe.
	Hosts, Addresses int
	// MaxRange is the most consecutive ports one port_scan range call may
	// ask for: a port list's bound below deep, the sweep's chunk on deep.
	MaxRange int
	// DeepWordlist: discover_hosts may try the deep wordlist.
	DeepWordlist bool
	// CrawlPages and CrawlDepth bound one web_crawl call.
	CrawlPages, CrawlDepth int
}

// Limits returns the tier's limits; an unknown tier has the standard
// tier's.
func (t Tier) Limits() Limits {
	switch t {
	case Quick:
		return Limits{Hosts: 2, Addresses: 2, MaxRange: 1000, CrawlPages: 10, CrawlDepth: 2}
	case Deep:
		return Limits{Hosts: 64, Addresses: 64, MaxRange: 4096, DeepWordlist: true, CrawlPages: 50, CrawlDepth: 3}
	}
	return Limits{Hosts: 16, Addresses: 16, MaxRange: 1000, CrawlPages: 10, CrawlDepth: 2}
}
