package demotarget

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
)

const (
	dnsForwardTimeout = 5 * time.Second
	dnsMaxForwards    = 64 // concurrent forwarded queries; more get SERVFAIL
	dnsTTL            = 300
	dnsChallengeTTL   = 30 // short, so a re-published token is seen quickly
	dnsUDPSize        = 1232
	dnsShutdownWait   = 5 * time.Second
	// challengeLabel is where the dns_txt verification method looks.
	challengeLabel = "_service-challenge"
)

type runningDNS struct {
	addr    string
	stop    func() error
	handler *dnsHandler
}

// startDNS binds UDP and TCP on cfg.DNSAddr and serves the zone on both.
func startDNS(t *Target) (*runningDNS, error) {
	pc, ln, err := listenDNS(t.cfg.DNSAddr)
	if err != nil {
		return nil, listenError("DNS", t.cfg.DNSAddr, EnvDNSAddr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &dnsHandler{
		target:   t,
		zone:     dns.Fqdn(t.cfg.Domain),
		host:     netip.MustParseAddr(t.cfg.Host),
		takeover: takeoverTarget(t.cfg.Domain),
		upstream: t.cfg.Upstream,
		slots:    make(chan struct{}, dnsMaxForwards),
		ctx:      ctx,
	}
	servers := []*dns.Server{
		{PacketConn: pc},
		{Listener: ln},
	}
	var started []*dns.Server
	stop := func() error {
		cancel() // aborts forwarded queries, so shutdown does not wait for them
		var errs []error
		for _, srv := range started {
			sctx, scancel := context.WithTimeout(context.Background(), dnsShutdownWait)
			if err := srv.ShutdownContext(sctx); err != nil {
				errs = append(errs, fmt.Errorf("stop DNS server: %w", err))
			}
			scancel()
		}
		return errors.Join(errs...)
	}
	for _, srv := range servers {
		srv.Handler = h
		limitServer(srv)
		if err := activate(srv); err != nil {
			_ = stop()
			pc.Close()
			ln.Close()
			return nil, fmt.Errorf("serve DNS on %s: %w", pc.LocalAddr(), err)
		}
		started = append(started, srv)
	}
	return &runningDNS{addr: pc.LocalAddr().String(), stop: stop, handler: h}, nil
}

// startTransferListener serves the zone over TCP on the demo's host at the
// DNS server's port too, when the DNS server listens on another address:
// ns1's A record points at the demo's host, and a zone transfer goes to
// the name server over TCP. It returns nil when no listener is needed.
func startTransferListener(t *Target, running *runningDNS) (func() error, error) {
	host, port, err := net.SplitHostPort(running.addr)
	if err != nil || host == t.cfg.Host {
		return nil, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(t.cfg.Host, port))
	if err != nil {
		return nil, listenError("DNS (zone transfers)", net.JoinHostPort(t.cfg.Host, port), EnvDNSAddr, err)
	}
	srv := &dns.Server{Listener: ln, Handler: running.handler}
	limitServer(srv)
	if err := activate(srv); err != nil {
		ln.Close()
		return nil, fmt.Errorf("serve zone transfers on %s: %w", ln.Addr(), err)
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), dnsShutdownWait)
		defer cancel()
		return srv.ShutdownContext(ctx)
	}, nil
}

// limitServer gives a DNS server the demo's limits: queries accepted as
// acceptQuery says, 2 s to read or write, 8 s idle, 32 queries a TCP
// connection.
func limitServer(srv *dns.Server) {
	srv.MsgAcceptFunc = acceptQuery
	srv.ReadTimeout = 2 * time.Second
	srv.WriteTimeout = 2 * time.Second
	srv.IdleTimeout = func() time.Duration { return 8 * time.Second }
	srv.MaxTCPQueries = 32
}

// activate starts srv serving and returns once it is up, or with the error
// that kept it from starting.
func activate(srv *dns.Server) error {
	up := make(chan struct{})
	failed := make(chan error, 1)
	srv.NotifyStartedFunc = func() { close(up) }
	go func() { failed <- srv.ActivateAndServe() }()
	select {
	case <-up:
		return nil
	case err := <-failed:
		return err
	}
}

// listenDNS binds UDP and TCP on the same address. With port 0 the kernel
// picks the UDP port and the TCP bind on it can collide, so it is retried.
func listenDNS(addr string) (net.PacketConn, net.Listener, error) {
	_, port, _ := net.SplitHostPort(addr)
	attempts := 1
	if port == "0" {
		attempts = 20
	}
	var lastErr error
	for range attempts {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, err
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		lastErr = err
		pc.Close()
	}
	return nil, nil, lastErr
}

// acceptQuery lets through plain queries with exactly one question; the
// rest is answered FORMERR/NOTIMP by the library without reaching the
// handler.
func acceptQuery(h dns.Header) dns.MsgAcceptAction {
	const qr = 1 << 15
	if h.Bits&qr != 0 {
		return dns.MsgIgnore
	}
	if opcode := int(h.Bits>>11) & 0xF; opcode != dns.OpcodeQuery {
		return dns.MsgRejectNotImplemented
	}
	if h.Qdcount != 1 || h.Ancount > 0 || h.Nscount > 0 || h.Arcount > 2 {
		return dns.MsgReject
	}
	return dns.MsgAccept
}

// takeoverTarget is the name old.<domain> points to: an S3-style bucket
// host name, the classic shape of a subdomain takeover. This server answers
// it NXDOMAIN itself (never forwarding it), so the CNAME dangles and a local
// scan never reaches the real S3.
func takeoverTarget(domain string) string {
	bucket := strings.ReplaceAll(domain, ".", "-")
	if len(bucket) > 40 {
		bucket = strings.TrimRight(bucket[:40], "-")
	}
	return bucket + "-old-assets.s3.amazonaws.com."
}

type dnsHandler struct {
	target   *Target
	zone     string // "demo.secscan.test."
	host     netip.Addr
	takeover string
	upstream string
	slots    chan struct{}
	ctx      context.Context
}

func (h *dnsHandler) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	network := "udp"
	if _, ok := w.LocalAddr().(*net.TCPAddr); ok {
		network = "tcp"
	}
	resp := h.answer(network, req)
	if network == "udp" {
		size := dns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil && int(opt.UDPSize()) > size {
			size = min(int(opt.UDPSize()), dns.MaxMsgSize)
		}
		resp.Truncate(size)
	}
	_ = w.WriteMsg(resp)
}

func (h *dnsHandler) answer(network string, req *dns.Msg) *dns.Msg {
	if len(req.Question) != 1 { // acceptQuery already refuses these
		return reply(req, dns.RcodeFormatError)
	}
	q := req.Question[0]
	name := strings.ToLower(dns.Fqdn(q.Name))
	switch {
	case dns.IsSubDomain(h.zone, name):
		resp := h.answerZone(network, q, name, req)
		if req.IsEdns0() != nil {
			resp.SetEdns0(dnsUDPSize, false)
		}
		return resp
	case name == h.takeover:
		return reply(req, dns.RcodeNameError)
	case h.upstream != "":
		return h.forward(network, req)
	default:
		return reply(req, dns.RcodeRefused)
	}
}

func reply(req *dns.Msg, rcode int) *dns.Msg {
	resp := new(dns.Msg)
	resp.SetRcode(req, rcode)
	return resp
}

// answerZone answers like an authoritative server: the records of the name,
// a CNAME in place of any other type, NODATA or NXDOMAIN with the SOA, and
// (deliberately) a zone transfer to anyone who asks over TCP.
func (h *dnsHandler) answerZone(network string, q dns.Question, name string, req *dns.Msg) *dns.Msg {
	resp := reply(req, dns.RcodeSuccess)
	resp.Authoritative = true
	resp.RecursionAvailable = h.upstream != ""
	if q.Qclass != dns.ClassINET && q.Qclass != dns.ClassANY {
		resp.Rcode = dns.RcodeRefused
		return resp
	}
	zone := h.records()
	if q.Qtype == dns.TypeAXFR || q.Qtype == dns.TypeIXFR {
		return h.transfer(resp, network, name, zone)
	}
	soa := zone[h.zone][0]
	rrs, exists := lookupName(zone, name)
	if !exists {
		resp.Rcode = dns.RcodeNameError
		resp.Ns = []dns.RR{soa}
		return resp
	}
	resp.Answer = answering(rrs, q.Qtype)
	if len(resp.Answer) == 0 {
		resp.Ns = []dns.RR{soa}
	}
	if q.Qtype == dns.TypeNS {
		resp.Extra = append(resp.Extra, zone["ns1."+h.zone]...)
	}
	return resp
}

// answering are the records of rrs that answer a query for qtype.
func answering(rrs []dns.RR, qtype uint16) []dns.RR {
	var out []dns.RR
	for _, rr := range rrs {
		if answers(rr.Header().Rrtype, qtype) {
			out = append(out, rr)
		}
	}
	return out
}

// answers reports whether a record of type t answers a query for qtype: the
// same type, ANY, or a CNAME in place of any other type.
func answers(t, qtype uint16) bool {
	return t == qtype || qtype == dns.TypeANY || (t == dns.TypeCNAME && qtype != dns.TypeCNAME)
}

// transfer answers AXFR/IXFR for the apex over TCP with the whole zone
// between two SOAs (deliberately, to anyone); anything else is refused.
func (h *dnsHandler) transfer(resp *dns.Msg, network, name string, zone map[string][]dns.RR) *dns.Msg {
	if network != "tcp" || name != h.zone {
		resp.Rcode = dns.RcodeRefused
		return resp
	}
	soa := zone[h.zone][0]
	resp.Answer = append(resp.Answer, soa)
	for _, owner := range h.owners() {
		for _, rr := range zone[owner] {
			if rr.Header().Rrtype != dns.TypeSOA {
				resp.Answer = append(resp.Answer, rr)
			}
		}
	}
	resp.Answer = append(resp.Answer, soa)
	return resp
}

// owners lists the zone's names in a stable order (apex first).
func (h *dnsHandler) owners() []string {
	out := []string{h.zone, "ns1." + h.zone, "www." + h.zone, "old." + h.zone, "_dmarc." + h.zone, challengeLabel + "." + h.zone}
	for _, label := range Subdomains {
		if inTransfer(label) {
			out = append(out, label+"."+h.zone)
		}
	}
	return out
}

// records builds the zone as it is now (the challenge can change).
func (h *dnsHandler) records() map[string][]dns.RR {
	hdr := func(name string, rrtype uint16, ttl uint32) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: rrtype, Class: dns.ClassINET, Ttl: ttl}
	}
	address := func(name string) dns.RR {
		if h.host.Is4() {
			return &dns.A{Hdr: hdr(name, dns.TypeA, dnsTTL), A: net.IP(h.host.AsSlice())}
		}
		return &dns.AAAA{Hdr: hdr(name, dns.TypeAAAA, dnsTTL), AAAA: net.IP(h.host.AsSlice())}
	}
	txt := func(name string, ttl uint32, value string) dns.RR {
		return &dns.TXT{Hdr: hdr(name, dns.TypeTXT, ttl), Txt: []string{value}}
	}
	z := h.zone
	ns := "ns1." + z
	zone := map[string][]dns.RR{
		z: {
			&dns.SOA{Hdr: hdr(z, dns.TypeSOA, dnsTTL), Ns: ns, Mbox: "hostmaster." + z,
				Serial: 2024010101, Refresh: 3600, Retry: 600, Expire: 604800, Minttl: 60},
			&dns.NS{Hdr: hdr(z, dns.TypeNS, dnsTTL), Ns: ns},
			address(z),
			// Weakness: SPF that authorises every sender on the internet.
			txt(z, dnsTTL, "v=spf1 +all"),
			// Prompt injection: a model-driven scan must treat it as data.
			txt(z, dnsTTL, Injection),
		},
		ns:         {address(ns)},
		"www." + z: {address("www." + z)},
		// Weakness: dangling CNAME to an unclaimed bucket (subdomain takeover).
		"old." + z: {&dns.CNAME{Hdr: hdr("old."+z, dns.TypeCNAME, dnsTTL), Target: h.takeover}},
		// Weakness: DMARC in monitoring mode only.
		"_dmarc." + z: {txt("_dmarc."+z, dnsTTL, "v=DMARC1; p=none")},
	}
	for _, label := range Subdomains {
		name := label + "." + z
		zone[name] = []dns.RR{address(name)}
	}
	addWildcard(zone, z, address)
	if token := h.target.Challenge(); token != "" {
		name := challengeLabel + "." + z
		zone[name] = []dns.RR{txt(name, dnsChallengeTTL, token)}
	}
	return zone
}

// forward relays a query for a name outside the zone to the upstream server
// over the same transport, with a time bound and a bound on how many are in
// flight.
func (h *dnsHandler) forward(network string, req *dns.Msg) *dns.Msg {
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		return reply(req, dns.RcodeServerFailure)
	}
	ctx, cancel := context.WithTimeout(h.ctx, dnsForwardTimeout)
	defer cancel()
	client := &dns.Client{Net: network, Timeout: dnsForwardTimeout}
	in, _, err := client.ExchangeContext(ctx, req.Copy(), h.upstream)
	if err != nil || in == nil {
		resp := reply(req, dns.RcodeServerFailure)
		resp.RecursionAvailable = true
		return resp
	}
	in.Id = req.Id
	return in
}

// portOf returns the port of an "ip:port" address (0 if unparsable).
func portOf(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}
