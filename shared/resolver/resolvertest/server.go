// Package resolvertest runs an in-process DNS server on 127.0.0.1 (UDP and
// TCP on the same port) for tests of code that resolves names through
// package resolver. It answers like a recursive resolver would: CNAME chains
// are expanded in the answer, unknown names get NXDOMAIN, known names
// without the asked type get an empty NOERROR answer.
package resolvertest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Server is a local DNS server. Configure it with Add, SetRcode, Hang and
// TruncateUDP; all methods are safe to call while it serves.
type Server struct {
	// Addr is the "127.0.0.1:port" the server listens on (UDP and TCP).
	Addr string

	mu       sync.Mutex
	records  map[string][]dns.RR // by canonical owner name
	rcodes   map[string]int
	hang     map[string]bool
	truncate map[string]bool
	queries  map[string]int // by network: "udp", "tcp"
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
	}
	pc, ln := listenPair(t)
	s.Addr = pc.LocalAddr().String()

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
		rr, err := dns.NewRR(text)
		if err != nil || rr == nil {
			t.Fatalf("resolvertest: bad record %q: %v", text, err)
		}
		owner := dns.CanonicalName(rr.Header().Name)
		s.records[owner] = append(s.records[owner], rr)
	}
}

// SetRcode makes every query for name answer with rcode (e.g.
// dns.RcodeServerFailure).
func (s *Server) SetRcode(name string, rcode int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcodes[dns.CanonicalName(name)] = rcode
}

// Hang makes every query for name go unanswered.
func (s *Server) Hang(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang[dns.CanonicalName(name)] = true
}

// TruncateUDP makes UDP queries for name get an empty answer with the TC
// bit set, so clients must retry over TCP.
func (s *Server) TruncateUDP(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncate[dns.CanonicalName(name)] = true
}

// Queries returns how many queries arrived over network ("udp" or "tcp").
func (s *Server) Queries(network string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[network]
}

func (s *Server) serve(w dns.ResponseWriter, req *dns.Msg) {
	network := "udp"
	if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
		network = "tcp"
	}
	resp := s.answer(network, req)
	if resp == nil {
		return // hang: never answer
	}
	if network == "udp" {
		// Like a real server: fit the client's buffer, setting TC if not.
		size := dns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil && int(opt.UDPSize()) > size {
			size = int(opt.UDPSize())
		}
		resp.Truncate(size)
	}
	_ = w.WriteMsg(resp)
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
	if rcode, ok := s.rcodes[name]; ok {
		resp.Rcode = rcode
		return resp
	}
	if network == "udp" && s.truncate[name] {
		resp.Truncated = true
		return resp
	}

	for range 16 { // follow CNAMEs like a recursive resolver, bounded
		rrs, exists := s.records[name]
		if !exists && !s.hasDescendant(name) {
			resp.Rcode = dns.RcodeNameError
			return resp
		}
		var cname *dns.CNAME
		found := false
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				resp.Answer = append(resp.Answer, dns.Copy(rr))
				found = true
			} else if c, ok := rr.(*dns.CNAME); ok && q.Qtype != dns.TypeCNAME {
				cname = c
			}
		}
		if found || cname == nil {
			return resp
		}
		resp.Answer = append(resp.Answer, dns.Copy(cname))
		name = dns.CanonicalName(cname.Target)
		if _, ok := s.rcodes[name]; ok {
			resp.Rcode = s.rcodes[name]
			return resp
		}
	}
	return resp
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
