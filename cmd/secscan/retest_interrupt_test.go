package main_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"secscan/infra/local/testseed"
	"secscan/shared/syncio"
)

// seedWebIssue records, directly in the store, a completed web scan of
// domain whose web.header.csp issue was found on each of hosts (at port,
// over scheme) by its own http_check call, and returns the scan's id.
func (s *stack) seedWebIssue(t *testing.T, userID, domain, scheme string, port int, hosts ...string) string {
	t.Helper()
	id, err := testseed.NewWebIssue(context.Background(), s.store, testseed.WebIssue{UserID: userID, Domain: domain,
		VerifiedAt: time.Now().UTC(), Scheme: scheme, Port: port, Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Ctrl-C during retest --wait cancels the retest: the calls under way
// finish, the others are not made, and the command shows that outcome and
// exits 3.
func TestRetestInterrupted(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	userID, token := s.newUserWithID(t)
	var hosts []string
	for i := range 8 {
		h := fmt.Sprintf("h%d.slow.test", i)
		s.dns.Add(t, h+". 60 IN A "+slowHost)
		hosts = append(hosts, h)
	}
	scanID := s.seedWebIssue(t, userID, "slow.test", "http", s.demo.HTTPPort(), hosts...)

	cr := &cliRun{s: s, token: token, interrupts: make(chan os.Signal, 2), stderr: &syncio.Buffer{}}
	done := make(chan result, 1)
	go func() { done <- cr.run(t, "retest", scanID, "web.header.csp", "--wait") }()
	await(t, "the retest to run", func() bool { return strings.Contains(cr.stderr.String(), " running…") })
	cr.interrupts <- syscall.SIGINT
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("no exit after the interrupt:\n%s", cr.stderr.String())
	}
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "Interrupted: cancelling retest rt_") || !strings.Contains(r.stdout, "failed: Cancelled by the user") ||
		!strings.Contains(r.stdout, "cancelled before this call") {
		t.Errorf("after Ctrl-C:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
