// Package scanners is the scan agent's toolbox: every security tool, each in
// its own package, registered under the names the planners use. Tools reach
// targets only through the guarded dialer in their tools.Env.
package scanners

import (
	"secscan/shared/scanners/code"
	"secscan/shared/scanners/crawl"
	"secscan/shared/scanners/dnscheck"
	"secscan/shared/scanners/exposure"
	"secscan/shared/scanners/network"
	"secscan/shared/scanners/tlscheck"
	"secscan/shared/scanners/vuln"
	"secscan/shared/scanners/web"
	"secscan/shared/tools"
)

// Registry returns every tool.
func Registry() *tools.Registry {
	return tools.NewRegistry(
		dnscheck.New(),
		network.New(),
		tlscheck.New(tlscheck.Options{}),
		web.New(),
		exposure.New(),
		vuln.New(),
		crawl.New(),
		code.New(),
	)
}
