// Package resolvertest runs an in-process DNS server on 127.0.0.1 (UDP and
// TCP on the same port) for tests of code that resolves names through
// package resolver. It answers like a recursive resolver would: CNAME chains
// are expanded in the answer, unknown names get NXDOMAIN, known names
// without the asked type get an empty NOERROR answer (with the SOA of the
// enclosing zone in the authority section, when one was added).
//
// Any record type zone-file syntax knows can be added (CAA, MX, NS, DS,
// DNSKEY, ... fake ones are fine: nothing validates them). For DNSSEC and
// zone-transfer checks it can also set the AD bit on chosen names
// (Authenticate) and answer AXFR over TCP for chosen zones (SetTransfer),
// counting TCP connections and transfer requests so tests can prove a
// server was, or was not, contacted.
package resolvertest

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Server is a local DNS server. Configure it with Add, SetRcode, Hang,
// TruncateUDP, Authenticate and SetTransfer; all methods are safe to call
// while it serves.
type Server struct {
	// Addr is the "127.0.0.1:port" the server listens on (UDP and TCP).
	Addr string

	mu       sync.Mutex
	records  map[string][]dns.RR // by canonical owner name
	rcodes   map[string]int
	hang     map[string]bool
	truncate map[string]bool
	queries  map[string]int // by network: "udp", "tcp"

	authenticated map[string]bool // names whose answers carry the AD bit
	transfer      map[string]bool // zone → AXFR allowed (absent: refused)
	transfers     map[string]int  // AXFR/IXFR requests by zone
	tcpConns      atomic.Int64    // TCP connections accepted
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		records:  make(map[string][]dns.RR),
		rcodes:   make(map[string]int),
		hang:     make(map[string]bool),
		truncate: make(map[string]bool),
		queries:  make(map[string]int),

		authenticated: make(map[string]bool),
		transfer:      make(map[string]bool),
		transfers:     make(map[string]int),
	}
	pc, tcp := listenPair(t)
	s.Addr = pc.LocalAddr().String()
	ln := countingListener{Listener: tcp, accepted: &s.tcpConns}

	for _, srv := range []*dns.Server{
		{PacketConn: pc, Handler: dns.HandlerFunc(s.serve)},
		{Listener: ln, Handler: dns.HandlerFunc(s.serve)},
	} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.ShutdownContext(ctx)
		})
	}
	return s
}

// listenPair binds UDP and TCP on the same loopback port; the UDP port is
// chosen by the kernel, so the TCP bind can collide and is retried.
func listenPair(t testing.TB) (net.PacketConn, net.Listener) {
	t.Helper()
	var lastErr error
	for range 20 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("resolvertest: listen udp: %v", err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln
		}
		lastErr = err
		pc.Close()
	}
	t.Fatalf("resolvertest: no port free for both udp and tcp: %v", lastErr)
	return nil, nil
}

// Add adds records in zone-file syntax, e.g. "example.test. A 127.0.0.1" or
// `_x.example.test. TXT "a" "b"`. A missing TTL defaults to 3600.
func (s *Server) Add(t testing.TB, records ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, text := range records {
		rr := RR(t, text)
		owner := dns.CanonicalName(rr.Header().Name)
		s.records[owner] = append(s.records[owner], rr)
	}
}

// RR parses one record in zone-file syntax; a bad one fails t.
func RR(t testing.TB, text string) dns.RR {
	t.Helper()
	rr, err := dns.NewRR(text)
	if err != nil || rr == nil {
		t.Fatalf("resolvertest: bad record %q: %v", text, err)
	}
	return rr
}

// SetRcode makes every query for name answer with rcode (e.g.
// dns.RcodeServerFailure).
func (s *Server) SetRcode(name string, rcode int) { set(s, s.rcodes, name, rcode) }

// Hang makes every query for name go unanswered.
func (s *Server) Hang(name string) { set(s, s.hang, name, true) }

// TruncateUDP makes UDP queries for name get an empty answer with the TC
// bit set, so clients must retry over TCP.
func (s *Server) TruncateUDP(name string) { set(s, s.truncate, name, true) }

// Queries returns how many queries arrived over network ("udp" or "tcp").
func (s *Server) Queries(network string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[network]
}

// Authenticate makes answers to queries for names carry the AD bit when the
// query asks for it with AD or DO, like a validating resolver that
// validated them (RFC 6840 section 5.7). Nothing is validated.
func (s *Server) Authenticate(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range names {
		s.authenticated[dns.CanonicalName(name)] = true
	}
}

// SetTransfer decides whether AXFR requests for zone are answered (allowed)
// or get REFUSED, the default for every zone. An allowed transfer, over TCP
// only, sends the zone's SOA (the one added at the apex, or a made-up one),
// every other record at or below the apex in owner order, and the SOA
// again, at most transferChunk records per message. Over UDP, AXFR is
// always REFUSED.
func (s *Server) SetTransfer(zone string, allowed bool) { set(s, s.transfer, zone, allowed) }

// set sets what m holds for name, canonical, under the server's lock.
func set[V any](s *Server, m map[string]V, name string, v V) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m[dns.CanonicalName(name)] = v
}

// Transfers returns how many AXFR or IXFR requests arrived for zone, over
// either network, allowed or not.
func (s *Server) Transfers(zone string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transfers[dns.CanonicalName(zone)]
}

// TCPConnections returns how many TCP connections the server accepted.
func (s *Server) TCPConnections() int { return int(s.tcpConns.Load()) }

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	accepted *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return conn, err
}

func (s *Server) serve(w dns.ResponseWriter, req *dns.Msg) {
	network := "udp"
	if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
		network = "tcp"
	}
	if len(req.Question) == 1 && isTransfer(req.Question[0].Qtype) {
		s.writeTransfer(w, network, req)
		return
	}
	resp := s.answer(network, req)
	if resp == nil {
		return // hang: never answer
	}
	if network == "udp" {
		// Like a real server: fit the client's buffer, setting TC if not.
		resp.Truncate(udpSize(req))
	}
	_ = w.WriteMsg(resp)
}

// writeTransfer writes the messages of a zone transfer, stopping when the
// client goes away (e.g. after the first message).
func (s *Server) writeTransfer(w dns.ResponseWriter, network string, req *dns.Msg) {
	for _, msg := range s.transferMessages(network, req) {
		if err := w.WriteMsg(msg); err != nil {
			return
		}
	}
}

// udpSize is the largest UDP answer the client of req takes.
func udpSize(req *dns.Msg) int {
	if opt := req.IsEdns0(); opt != nil && int(opt.UDPSize()) > dns.MinMsgSize {
		return int(opt.UDPSize())
	}
	return dns.MinMsgSize
}

func (s *Server) answer(network string, req *dns.Msg) *dns.Msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries[network]++

	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.RecursionAvailable = true
	if len(req.Question) != 1 {
		resp.Rcode = dns.RcodeFormatError
		return resp
	}
	q := req.Question[0]
	name := dns.CanonicalName(q.Name)
	if s.hang[name] {
		return nil
	}
	resp.AuthenticatedData = s.authenticated[name] && asksAD(req)
	if rcode, ok := s.rcodes[name]; ok {
		resp.Rcode = rcode
		return resp
	}
	if network == "udp" && s.truncate[name] {
		resp.Truncated = true
		return resp
	}
	s.resolve(resp, name, q.Qtype)
	return resp
}

// asksAD reports whether req asks whether its answer was validated: the
// AD bit, or DO.
func asksAD(req *dns.Msg) bool {
	return req.AuthenticatedData || (req.IsEdns0() != nil && req.IsEdns0().Do())
}

// resolve answers a question for name and qtype into resp, following
// CNAMEs like a recursive resolver, bounded.
func (s *Server) resolve(resp *dns.Msg, name string, qtype uint16) {
	for range 16 {
		rrs, exists := s.recordsOf(name)
		if !exists {
			resp.Rcode = dns.RcodeNameError
			s.addZoneSOA(resp, name)
			return
		}
		answers, cname := matching(rrs, qtype)
		if len(answers) > 0 {
			resp.Answer = append(resp.Answer, answers...)
			return
		}
		if cname == nil {
			s.addZoneSOA(resp, name) // NOERROR without data
			return
		}
		resp.Answer = append(resp.Answer, dns.Copy(cname))
		name = dns.CanonicalName(cname.Target)
		if rcode, ok := s.rcodes[name]; ok {
			resp.Rcode = rcode
			return
		}
	}
}

// recordsOf are the records of name, its own or a wildcard's, and whether
// it exists (an empty non-terminal exists without records).
func (s *Server) recordsOf(name string) ([]dns.RR, bool) {
	rrs, exists := s.records[name]
	if exists || s.hasDescendant(name) {
		return rrs, true
	}
	return s.wildcard(name)
}

// matching are copies of the records of qtype among rrs and, unless CNAME
// is asked for, the last CNAME among them.
func matching(rrs []dns.RR, qtype uint16) (answers []dns.RR, cname *dns.CNAME) {
	for _, rr := range rrs {
		if rr.Header().Rrtype == qtype {
			answers = append(answers, dns.Copy(rr))
		} else if c, ok := rr.(*dns.CNAME); ok && qtype != dns.TypeCNAME {
			cname = c
		}
	}
	return answers, cname
}

// addZoneSOA puts the SOA of the closest zone enclosing name (an added SOA
// record at name or an ancestor) into the authority section of a negative
// answer, as RFC 2308 says; nothing when no such SOA was added.
func (s *Server) addZoneSOA(resp *dns.Msg, name string) {
	if soa := s.zoneSOA(name); soa != nil {
		resp.Ns = append(resp.Ns, soa)
	}
}

// zoneSOA returns a copy of the SOA at name or its closest ancestor that
// has one, or nil.
func (s *Server) zoneSOA(name string) dns.RR {
	for off, end := 0, false; !end; off, end = dns.NextLabel(name, off) {
		for _, rr := range s.records[name[off:]] {
			if rr.Header().Rrtype == dns.TypeSOA {
				return dns.Copy(rr)
			}
		}
	}
	return nil
}

// transferChunk is how many records one AXFR message carries.
const transferChunk = 100

func isTransfer(qtype uint16) bool { return qtype == dns.TypeAXFR || qtype == dns.TypeIXFR }

// transferMessages answers an AXFR (or IXFR, served as a full transfer,
// which RFC 1995 allows) request: the zone in messages when the transfer is
// allowed and the request came over TCP, else one REFUSED message.
func (s *Server) transferMessages(network string, req *dns.Msg) []*dns.Msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries[network]++
	zone := dns.CanonicalName(req.Question[0].Name)
	s.transfers[zone]++
	if s.hang[zone] {
		return nil
	}

	refused := new(dns.Msg)
	refused.SetRcode(req, dns.RcodeRefused)
	if network != "tcp" || !s.transfer[zone] {
		return []*dns.Msg{refused}
	}

	records := s.zoneRecords(zone)
	var msgs []*dns.Msg
	for start := 0; start < len(records); start += transferChunk {
		msg := new(dns.Msg)
		msg.SetReply(req)
		msg.Authoritative = true
		msg.Answer = records[start:min(start+transferChunk, len(records))]
		msgs = append(msgs, msg)
	}
	return msgs
}

// zoneRecords are the records of zone in transfer order: its SOA, every
// other record by owner, and the SOA again.
func (s *Server) zoneRecords(zone string) []dns.RR {
	soa := s.transferSOA(zone)
	owners := make([]string, 0, len(s.records))
	for owner := range s.records {
		if owner == zone || strings.HasSuffix(owner, "."+zone) {
			owners = append(owners, owner)
		}
	}
	sort.Strings(owners)
	records := []dns.RR{soa}
	for _, owner := range owners {
		for _, rr := range s.records[owner] {
			if rr.Header().Rrtype != dns.TypeSOA {
				records = append(records, dns.Copy(rr))
			}
		}
	}
	return append(records, dns.Copy(soa))
}

// transferSOA is a copy of zone's SOA record, or a made-up one when the
// server has none.
func (s *Server) transferSOA(zone string) dns.RR {
	for _, rr := range s.records[zone] {
		if rr.Header().Rrtype == dns.TypeSOA {
			return dns.Copy(rr)
		}
	}
	return &dns.SOA{
		Hdr:     dns.RR_Header{Name: zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 3600},
		Ns:      "ns1." + zone,
		Mbox:    "hostmaster." + zone,
		Serial:  1,
		Refresh: 3600, Retry: 600, Expire: 86400, Minttl: 300,
	}
}

// wildcard returns the records of the closest wildcard (*.parent) covering
// name, owned by name, as an authoritative server synthesises them (RFC
// 4592, simplified: any wildcard of an ancestor applies).
func (s *Server) wildcard(name string) ([]dns.RR, bool) {
	labels := dns.SplitDomainName(name)
	for i := 1; i < len(labels); i++ {
		rrs, ok := s.records["*."+dns.Fqdn(strings.Join(labels[i:], "."))]
		if !ok {
			continue
		}
		out := make([]dns.RR, len(rrs))
		for j, rr := range rrs {
			out[j] = dns.Copy(rr)
			out[j].Header().Name = name
		}
		return out, true
	}
	return nil, false
}

// hasDescendant reports whether some record lives below name, which makes
// name an empty non-terminal: it exists (NOERROR) without records.
func (s *Server) hasDescendant(name string) bool {
	suffix := "." + name
	for owner := range s.records {
		if strings.HasSuffix(owner, suffix) {
			return true
		}
	}
	return false
}

// String describes the server for test logs.
func (s *Server) String() string { return fmt.Sprintf("resolvertest.Server(%s)", s.Addr) }
