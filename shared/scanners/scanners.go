// Package scanners is the scan agent's toolbox: every security tool, each in
// its own package, registered under the names the planners use. Tools reach
// targets only through the guarded dialer in their tools.Env.
package scanners

import (
	"crypto/x509"
	"secscan/shared/scanners/internal/httpprobe"

	"secscan/shared/scanners/code"
	"secscan/shared/scanners/crawl"
	"secscan/shared/scanners/discovery"
	"secscan/shared/scanners/dnscheck"
	"secscan/shared/scanners/exposure"
	"secscan/shared/scanners/fingerprint"
	"secscan/shared/scanners/followup"
	"secscan/shared/scanners/ftpaudit"
	"secscan/shared/scanners/network"
	"secscan/shared/scanners/sshaudit"
	"secscan/shared/scanners/tlscheck"
	"secscan/shared/scanners/vuln"
	"secscan/shared/scanners/web"
	"secscan/shared/tools"
)

// Registry returns every tool. With roots, certificates are verified
// against roots instead of the system pool (the local stack trusts its demo
// target's CA; tests their own).
func Registry(roots ...*x509.CertPool) *tools.Registry {
	var pool *x509.CertPool
	if len(roots) > 0 {
		pool = roots[0]
	}
	ca := httpprobe.WithRootCAs(pool) // the web tools' shared option
	return tools.NewRegistry(
		dnscheck.New(),
		discovery.New(discovery.WithRootCAs(pool)),
		network.New(),
		tlscheck.New(tlscheck.Options{RootCAs: pool}),
		web.New(ca),
		exposure.New(ca),
		fingerprint.New(ca),
		vuln.New(vuln.WithRootCAs(pool)),
		crawl.New(ca),
		code.New(ca),
		followup.NewServiceInfo(),
		sshaudit.New(),
		followup.NewFileSecrets(ca),
		followup.NewListingFiles(ca),
		followup.NewConfirmCVE(ca),
		ftpaudit.New(),
	)
}
