package network

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"secscan/shared/scans"
)

// Every finding on an answering port carries the transcript of the
// exchange: what was sent (or that nothing was), and what came back, with
// control characters escaped and binary greetings shown as hex.
func TestFindingsCarryTranscriptProof(t *testing.T) {
	t.Parallel()
	env := testEnv(t, true)
	cases := []struct {
		name          string
		hint          string
		handle        func(net.Conn, *server)
		check         scans.CheckCode
		request, resp string
	}{
		{name: "redis", hint: "redis", handle: responder([]byte("+PONG\r\n")),
			check: "network.service.redis-unauthenticated", request: "send:\nPING", resp: "+PONG"},
		{name: "vsftpd", handle: greeter([]byte("220 (vsFTPd 2.3.4)\x1b[2J\r\n")),
			check: "network.version.vsftpd-backdoor", request: "(nothing sent: the service speaks first)", resp: `220 (vsFTPd 2.3.4)\x1b[2J`},
		{name: "mysql", handle: greeter(mysqlGreeting("5.5.62-log")),
			check: "network.service.mysql-exposed", request: "(nothing sent", resp: "bytes of binary)"},
	}
	scanner := newScanner()
	scanner.bannerTimeout = 500 * time.Millisecond
	scanner.hints = map[int]string{}
	var ports []int
	servers := make([]*server, len(cases))
	for i, tc := range cases {
		servers[i] = startServer(t, tc.handle)
		if tc.hint != "" {
			scanner.hints[servers[i].port] = tc.hint
		}
		ports = append(ports, servers[i].port)
	}
	res, err := scanner.Run(context.Background(), env, mustJSON(t, map[string]any{"host": "ports.scan.test", "ports": ports}))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p *scans.Proof
			for _, f := range res.Findings {
				if f.Port != nil && *f.Port == servers[i].port && f.Check == tc.check {
					p = f.Proof
				}
			}
			if p == nil {
				t.Fatalf("no %s finding with a proof on port %d: %+v", tc.check, servers[i].port, res.Findings)
			}
			if p.Kind != scans.ProofTranscript || p.Curl != nil || p.ObservedAt.IsZero() {
				t.Errorf("proof %+v", p)
			}
			if !strings.HasPrefix(p.Request, "connect ports.scan.test:") || !strings.Contains(p.Request, tc.request) {
				t.Errorf("request %q does not contain %q", p.Request, tc.request)
			}
			if !strings.Contains(p.Response, tc.resp) || strings.ContainsRune(p.Response, 0x1b) {
				t.Errorf("response %q does not contain %q (or keeps a raw escape)", p.Response, tc.resp)
			}
		})
	}
}
