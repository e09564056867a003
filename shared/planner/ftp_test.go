package planner_test

import (
	"slices"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// Every FTP service found is audited once per address and port: a 220
// greeting identified as FTP on any port, and anything on port 21; web
// scans do not audit services.
func TestPlanAuditsEveryFTPService(t *testing.T) {
	t.Parallel()
	sf := surface()
	sf.Services = append(sf.Services,
		scans.ServiceInfo{Host: domain, Address: "192.0.2.10", Port: 2121, Transport: "tcp", Protocol: "ftp"},
		scans.ServiceInfo{Host: "mail." + domain, Address: "192.0.2.30", Port: 21, Transport: "tcp", Protocol: "unknown"},
	)
	p := planner.Playbook{Tools: scanners.Registry()}
	st := stateOf(scans.Full, plans.Standard, 200, sf)
	got := calls(run(t, p, st), planner.FTPAudit)
	want := []string{`{"host":"example.com","port":2121}`, `{"host":"mail.example.com","port":21}`}
	if !slices.Equal(got, want) {
		t.Errorf("ftp_audit calls %v, want %v (www and legacy share the domain's address)", got, want)
	}
	st.Scan.Type = scans.Network
	if got := calls(run(t, p, st), planner.FTPAudit); len(got) != 2 {
		t.Errorf("network scan: ftp_audit calls %v", got)
	}
	st.Scan.Type = scans.Web
	if got := calls(run(t, p, st), planner.FTPAudit); len(got) != 0 {
		t.Errorf("web scan audits FTP: %v", got)
	}
}
