package planner

import (
	"fmt"
	"strconv"

	"secscan/shared/scans"
)

// FTPAudit is the ftp_audit tool: anonymous login, what it can list, AUTH TLS.
const FTPAudit = "ftp_audit"

// ftpPort is FTP's registered control port.
const ftpPort = 21

// auditsServices reports whether a scan type audits the services its port
// scans find (FTP): the full and network scans.
func auditsServices(t scans.Type) bool { return t == scans.Full || t == scans.Network }

// ftpAudits are the ftp_audit calls of host h: every service the port scan
// identified as FTP (a 220 greeting naming FTP on any port, or port 21 by
// its number) and anything on port 21, once per address and port (hosts
// sharing an address share its services).
func ftpAudits(h scans.Host, svcs []scans.ServiceInfo, audited map[string]bool) []Call {
	var out []Call
	for _, v := range svcs {
		if v.Protocol != "ftp" && v.Port != ftpPort {
			continue
		}
		key := firstAddress(h) + "/" + strconv.Itoa(v.Port)
		if v.Address != "" {
			key = v.Address + "/" + strconv.Itoa(v.Port)
		}
		if audited[key] {
			continue
		}
		audited[key] = true
		out = append(out, Call{Tool: FTPAudit, Host: h.Name,
			Input: encode(map[string]any{"host": h.Name, "port": v.Port}),
			Why:   fmt.Sprintf("FTP service on %s:%d: anonymous login, what it lists, AUTH TLS", h.Name, v.Port)})
	}
	return out
}
