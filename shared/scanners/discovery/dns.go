package discovery

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/domainname"
	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/dnswire"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
)

// nameServers reads the domain's NS records (in-scope ones are hosts) and
// tries a zone transfer at in-scope name servers, keeping the names.
func (d *discovery) nameServers(ctx context.Context) {
	ans, err := d.env.Resolver.Query(ctx, d.domain, dns.TypeNS)
	if err != nil {
		d.note("NS lookup failed: %s", httpprobe.Clean(err.Error(), 120))
		return
	}
	servers := d.considerNameServers(ans.Records)
	if !d.use[scans.SourceAXFR] {
		return
	}
	var wg sync.WaitGroup
	for _, ns := range servers {
		wg.Go(func() { d.transfer(ctx, ns) })
	}
	wg.Wait()
}

// considerNameServers considers the names of NS records (with the NS
// source) and returns the distinct in-scope ones, at most maxNameServers:
// the servers asked for a zone transfer.
func (d *discovery) considerNameServers(records []dns.RR) []string {
	var servers []string
	for _, rr := range records {
		ns, ok := rr.(*dns.NS)
		if !ok {
			continue
		}
		name := strings.TrimSuffix(dns.CanonicalName(ns.Ns), ".")
		if d.use[scans.SourceNS] {
			d.consider(name, scans.SourceNS)
		}
		if domainname.InScope(name, d.domain) && len(servers) < maxNameServers && !slices.Contains(servers, name) {
			servers = append(servers, name)
		}
	}
	return servers
}

// transfer asks one in-scope name server for the zone and keeps the owner
// names (and in-zone targets) of its records; nothing else is kept.
func (d *discovery) transfer(ctx context.Context, ns string) {
	ctx, cancel := context.WithTimeout(ctx, 6*time.Second)
	defer cancel()
	conn := d.dialNameServer(ctx, ns)
	if conn == nil {
		return
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	frame, id, err := dnswire.AXFRRequest(d.domain)
	if err != nil {
		return
	}
	if _, err := conn.Write(frame); err != nil {
		return
	}
	if records := d.readZone(conn, id); records > 0 {
		d.note("zone transfer allowed by %s: %d records read, names kept", ns, records)
	}
}

// dialNameServer connects to a name server's DNS port over TCP; nil (and
// a note when the policy or the network refuses) when it cannot.
func (d *discovery) dialNameServer(ctx context.Context, ns string) net.Conn {
	ips, err := d.env.Resolver.LookupIP(ctx, ns)
	if err != nil || len(ips) == 0 {
		return nil
	}
	port := d.env.Ports.DNSPort()
	if d.tool.axfrPort > 0 {
		port = d.tool.axfrPort
	}
	// Checked here, where the name is known, so a refusal names the server
	// and never the address it resolved to.
	var refused *netguard.AddressError
	if err := d.env.Dialer.Policy().CheckResolved(ns, ips[0]); errors.As(err, &refused) {
		d.note("zone transfer at %s not tried: refused: %s", ns, refused.Plain())
		return nil
	}
	conn, err := d.env.Dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(ips[0], uint16(port)).String())
	if err != nil {
		d.note("zone transfer at %s not tried: %s", ns, httpprobe.Clean(err.Error(), 120))
		return nil
	}
	return conn
}

// readZone reads the answers to the transfer query id, within the
// record and byte bounds, until the closing SOA, considering the names;
// it returns the number of records read.
func (d *discovery) readZone(conn io.Reader, id uint16) (records int) {
	read, soas := 0, 0
	for records < maxAXFRRecords {
		body, err := dnswire.ReadFrame(conn, maxAXFRBytes-read)
		if err != nil {
			break
		}
		read += 2 + len(body)
		var msg dns.Msg
		if msg.Unpack(body) != nil || msg.Id != id || msg.Rcode != dns.RcodeSuccess || len(msg.Answer) == 0 {
			break
		}
		records += len(msg.Answer)
		soas += d.zoneRecords(msg.Answer)
		if soas >= 2 { // the closing SOA: the transfer is complete
			break
		}
	}
	return records
}

// zoneRecords considers the owner names of a transfer's address and alias
// records (and the aliases' targets); it returns the number of SOAs.
func (d *discovery) zoneRecords(answer []dns.RR) (soas int) {
	for _, rr := range answer {
		switch v := rr.(type) {
		case *dns.SOA:
			soas++
		case *dns.A, *dns.AAAA:
			d.consider(rr.Header().Name, scans.SourceAXFR)
		case *dns.CNAME:
			d.consider(rr.Header().Name, scans.SourceAXFR)
			if d.use[scans.SourceCNAME] {
				d.consider(v.Target, scans.SourceCNAME)
			}
		}
	}
	return soas
}

// mailExchangers: in-scope MX hosts.
func (d *discovery) mailExchangers(ctx context.Context) {
	ans, err := d.env.Resolver.Query(ctx, d.domain, dns.TypeMX)
	if err != nil {
		return
	}
	for _, rr := range ans.Records {
		if mx, ok := rr.(*dns.MX); ok {
			d.consider(mx.Mx, scans.SourceMX)
		}
	}
}

// spf: the names an SPF record mentions (include:, a:, mx:, ptr:,
// exists:, redirect=).
func (d *discovery) spf(ctx context.Context) {
	txts, err := d.env.Resolver.LookupTXT(ctx, d.domain)
	if err != nil {
		return
	}
	for _, txt := range txts {
		for _, name := range spfNames(txt) {
			d.consider(name, scans.SourceSPF)
		}
	}
}

// spfMechanisms are the SPF terms whose argument is a name.
var spfMechanisms = []string{"include:", "a:", "mx:", "ptr:", "exists:", "redirect="}

// spfNames are the names an SPF record mentions (none when txt is not an
// SPF record); names with macros name nothing and are left out.
func spfNames(txt string) []string {
	if !strings.HasPrefix(strings.ToLower(txt), "v=spf1") {
		return nil
	}
	var out []string
	for _, term := range strings.Fields(txt)[1:] {
		term = strings.TrimLeft(strings.ToLower(term), "+-~?")
		for _, prefix := range spfMechanisms {
			rest, ok := strings.CutPrefix(term, prefix)
			name, _, _ := strings.Cut(rest, "/")
			if ok && !strings.Contains(name, "%") { // macros name nothing
				out = append(out, name)
			}
		}
	}
	return out
}

// wordlist resolves label.domain for every built-in label; a name whose
// addresses are all wildcard answers is dropped, and a name that exists
// without addresses (an empty non-terminal) is noted as having children.
func (d *discovery) wordlist(ctx context.Context) {
	d.tried = inParallel(ctx, d.labelConcurrency, d.labels, func(_ int, l string) {
		if err := d.guess(ctx, l, d.domain); isEmptyNonTerminal(err) {
			d.wild.hint(l + "." + d.domain)
		}
	})
}
