package resolver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"

	"secscan/shared/resolver/resolvertest"
)

func newQueryResolver(t *testing.T) (*Resolver, *resolvertest.Server) {
	t.Helper()
	srv := resolvertest.Start(t)
	srv.Add(t,
		"zone.test. SOA ns1.zone.test. hostmaster.zone.test. 7 3600 600 86400 300",
		"zone.test. NS ns1.zone.test.",
		"zone.test. NS ns.provider.test.",
		"zone.test. MX 10 mail.zone.test.",
		`zone.test. CAA 0 issue "letsencrypt.org"`,
		"zone.test. DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
		"zone.test. DNSKEY 257 3 13 bW9jayBrZXkgZm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwga2V5IGF0IGFsbA==",
		"ns1.zone.test. A 127.0.0.1",
		"www.zone.test. CNAME edge.zone.test.",
		"edge.zone.test. CNAME host.zone.test.",
		"host.zone.test. A 192.0.2.5",
		"gone.zone.test. CNAME nowhere.cdn.test.",
		"loop1.zone.test. CNAME loop2.zone.test.",
		"loop2.zone.test. CNAME loop1.zone.test.",
		"deep.sub.zone.test. A 192.0.2.6",
	)
	srv.SetRcode("broken.zone.test.", dns.RcodeServerFailure)
	srv.Hang("hang.zone.test.")
	srv.Authenticate("zone.test.")
	r, err := New(srv.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

func TestQuery(t *testing.T) {
	t.Parallel()
	r, _ := newQueryResolver(t)
	tests := []struct {
		name     string
		qtype    uint16
		rcode    int
		records  []string // presentation form of Records, owner-stripped values
		cnames   []string
		aliased  int
		ad       bool
		zoneHint string // Answer.Zone()
	}{
		{name: "zone.test", qtype: dns.TypeCAA, records: []string{`0 issue "letsencrypt.org"`}, ad: true},
		{name: "zone.test", qtype: dns.TypeMX, records: []string{"10 mail.zone.test."}, ad: true},
		{name: "zone.test", qtype: dns.TypeNS, records: []string{"ns1.zone.test.", "ns.provider.test."}, ad: true},
		{name: "zone.test", qtype: dns.TypeDS, records: []string{"12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"}, ad: true},
		{name: "zone.test", qtype: dns.TypeDNSKEY, records: []string{"257 3 13 bW9jayBrZXkgZm9yIHRlc3RzIG9ubHksIG5vdCBhIHJlYWwga2V5IGF0IGFsbA=="}, ad: true},
		// A CNAME question returns the CNAME itself and stops at one hop.
		{name: "www.zone.test", qtype: dns.TypeCNAME, records: []string{"edge.zone.test."}, cnames: []string{"edge.zone.test."}},
		// Another type: the chain is reported, the name owns no record.
		{name: "www.zone.test", qtype: dns.TypeA, cnames: []string{"edge.zone.test.", "host.zone.test."}, aliased: 1},
		{name: "host.zone.test", qtype: dns.TypeA, records: []string{"192.0.2.5"}},
		// A dangling alias: NXDOMAIN is about the chain's last name.
		{name: "gone.zone.test", qtype: dns.TypeA, rcode: dns.RcodeNameError, cnames: []string{"nowhere.cdn.test."}},
		{name: "loop1.zone.test", qtype: dns.TypeA, cnames: []string{"loop2.zone.test."}},
		// Negative answers are answers, with the zone's SOA.
		{name: "missing.zone.test", qtype: dns.TypeA, rcode: dns.RcodeNameError, zoneHint: "zone.test."},
		{name: "host.zone.test", qtype: dns.TypeCAA, zoneHint: "zone.test."},
		{name: "sub.zone.test", qtype: dns.TypeNS, zoneHint: "zone.test."}, // empty non-terminal
		{name: "broken.zone.test", qtype: dns.TypeCAA, rcode: dns.RcodeServerFailure},
		{name: "elsewhere.test", qtype: dns.TypeA, rcode: dns.RcodeNameError}, // no SOA known
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.name, dns.TypeToString[tt.qtype]), func(t *testing.T) {
			t.Parallel()
			a, err := r.Query(context.Background(), tt.name, tt.qtype)
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if a.Rcode != tt.rcode || a.Authenticated != tt.ad {
				t.Errorf("rcode %d AD %v, want %d %v", a.Rcode, a.Authenticated, tt.rcode, tt.ad)
			}
			if a.NXDomain() != (tt.rcode == dns.RcodeNameError) {
				t.Errorf("NXDomain() = %v", a.NXDomain())
			}
			var got []string
			for _, rr := range a.Records {
				got = append(got, rdata(rr))
			}
			if !slices.Equal(got, tt.records) {
				t.Errorf("records %q, want %q", got, tt.records)
			}
			if !slices.Equal(a.CNAMEs, tt.cnames) {
				t.Errorf("CNAMEs %q, want %q", a.CNAMEs, tt.cnames)
			}
			if len(a.Aliased) != tt.aliased || len(a.Followed()) != len(tt.records)+tt.aliased {
				t.Errorf("aliased %v followed %v", a.Aliased, a.Followed())
			}
			if a.Zone() != tt.zoneHint {
				t.Errorf("Zone() = %q, want %q", a.Zone(), tt.zoneHint)
			}
		})
	}
}

// rdata is a record's presentation form without its header.
func rdata(rr dns.RR) string {
	s := rr.String()
	h := rr.Header().String()
	if len(s) >= len(h) {
		return s[len(h):]
	}
	return s
}

func TestQueryAsksForAD(t *testing.T) {
	t.Parallel()
	// A validating resolver sets AD only for a client that asks (AD or DO
	// in the query); LookupTXT does not ask, Query does.
	r, _ := newQueryResolver(t)
	resp, err := r.exchange(context.Background(), "zone.test.", dns.TypeCAA)
	if err != nil || resp.AuthenticatedData {
		t.Errorf("plain exchange: AD %v, err %v; want no AD", resp != nil && resp.AuthenticatedData, err)
	}
	a, err := r.Query(context.Background(), "zone.test.", dns.TypeCAA)
	if err != nil || !a.Authenticated {
		t.Errorf("Query: AD %v, err %v; want AD", a.Authenticated, err)
	}
}

func TestQueryRefusesAndBounds(t *testing.T) {
	t.Parallel()
	r, srv := newQueryResolver(t)
	for _, qtype := range []uint16{dns.TypeAXFR, dns.TypeIXFR, dns.TypeANY, dns.TypeOPT, dns.TypeTSIG, 0, 200} {
		if _, err := r.Query(context.Background(), "zone.test", qtype); err == nil {
			t.Errorf("Query type %d: want error", qtype)
		}
	}
	for _, name := range []string{"", ".", "a..b", string(make([]byte, 300))} {
		if _, err := r.Query(context.Background(), name, dns.TypeA); err == nil {
			t.Errorf("Query(%q): want error", name)
		}
	}
	if n := srv.Queries("udp") + srv.Queries("tcp"); n != 0 {
		t.Errorf("refused queries sent %d packets", n)
	}

	for i := range 40 {
		srv.Add(t, fmt.Sprintf(`many.zone.test. CAA 0 issue "ca%d.example"`, i))
	}
	a, err := r.Query(context.Background(), "many.zone.test", dns.TypeCAA)
	if err != nil || len(a.Records) != MaxAnswers {
		t.Errorf("got %d records, %v; want the bound %d", len(a.Records), err, MaxAnswers)
	}
}

func TestQueryTimeoutAndTransportErrors(t *testing.T) {
	t.Parallel()
	r, _ := newQueryResolver(t)
	short, err := New(r.Server(), 150*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := short.Query(context.Background(), "hang.zone.test", dns.TypeCAA); !errors.Is(err, ErrTimeout) {
		t.Errorf("hanging server: err = %v, want ErrTimeout", err)
	}
	dead, err := New("127.0.0.1:1", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Query(context.Background(), "zone.test", dns.TypeCAA); err == nil {
		t.Error("unreachable server: want an error")
	}
}

func TestServerTransfer(t *testing.T) {
	t.Parallel()
	_, srv := newQueryResolver(t)
	srv.SetTransfer("zone.test", true)
	srv.SetTransfer("closed.test", false)
	srv.Add(t, "closed.test. A 192.0.2.9")

	axfr := func(network, zone string) []*dns.Msg {
		t.Helper()
		conn, err := net.DialTimeout(network, srv.Addr, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
		c := &dns.Conn{Conn: conn}
		q := new(dns.Msg)
		q.SetAxfr(zone)
		if err := c.WriteMsg(q); err != nil {
			t.Fatal(err)
		}
		var msgs []*dns.Msg
		soas := 0
		for range 10 { // until the closing SOA
			m, err := c.ReadMsg()
			if err != nil {
				break
			}
			msgs = append(msgs, m)
			if m.Rcode != dns.RcodeSuccess || network == "udp" {
				break
			}
			for _, rr := range m.Answer {
				if rr.Header().Rrtype == dns.TypeSOA {
					soas++
				}
			}
			if soas >= 2 {
				break
			}
		}
		return msgs
	}

	before := srv.TCPConnections()
	msgs := axfr("tcp", "zone.test.")
	if len(msgs) != 1 || msgs[0].Rcode != dns.RcodeSuccess {
		t.Fatalf("allowed transfer: %v", msgs)
	}
	ans := msgs[0].Answer
	if ans[0].Header().Rrtype != dns.TypeSOA || ans[len(ans)-1].Header().Rrtype != dns.TypeSOA || len(ans) < 10 {
		t.Errorf("transfer does not start and end with the SOA or is short: %v", ans)
	}
	if got := srv.TCPConnections() - before; got != 1 {
		t.Errorf("TCP connections = %d, want 1", got)
	}
	for _, c := range []struct{ network, zone string }{{"tcp", "closed.test."}, {"tcp", "other.test."}, {"udp", "zone.test."}} {
		msgs := axfr(c.network, c.zone)
		if len(msgs) != 1 || msgs[0].Rcode != dns.RcodeRefused || len(msgs[0].Answer) != 0 {
			t.Errorf("%s AXFR %s: %v, want REFUSED", c.network, c.zone, msgs)
		}
	}
	if srv.Transfers("zone.test") != 2 || srv.Transfers("closed.test") != 1 {
		t.Errorf("transfers counted: zone.test %d, closed.test %d", srv.Transfers("zone.test"), srv.Transfers("closed.test"))
	}
}
