package main_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/ids"
)

// secscan retest --wait against the whole local stack: a completed scan of
// the demo target whose home page lacks a CSP header (seeded with the call
// that found it) is retested for real; the weakness is still there, so the
// location is reproduced and the exit code is 1. Without --wait the retest
// is queued and its id printed; an unknown issue is the API's 404 (exit 2).
func TestRetestCommand(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	userID, token := s.newUserWithID(t)
	domain := s.demo.Domain()
	port := s.demo.HTTPSPort()
	scanID := s.seedWebIssue(t, userID, domain, "https", port, domain)
	c := s.cli(token)

	start := time.Now()
	r := c.run(t, "retest", scanID, "web.header.csp", "--wait")
	t.Logf("retest --wait: %v", time.Since(start).Round(time.Millisecond))
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, "reproduced      "+domain+":"+strconv.Itoa(port)+"  Still present") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "Retest rt_") || !strings.Contains(r.stderr, "completed: 1 location(s), 5 credits.") {
		t.Errorf("stderr:\n%s", r.stderr)
	}

	r = c.run(t, "retest", scanID, "web.header.csp", "--json")
	expectCode(t, r, 0)
	var rt struct{ ID, Status string }
	if err := json.Unmarshal([]byte(r.stdout), &rt); err != nil || !ids.Valid(ids.Retest, rt.ID) || rt.Status != "queued" {
		t.Errorf("retest --json: %v %s", err, r.stdout)
	}

	r = c.run(t, "retest", scanID, "web.header.nosniff")
	expectCode(t, r, 2)
	if !strings.Contains(r.stderr, "(HTTP 404)") {
		t.Errorf("unknown issue: %s", r.stderr)
	}
}

// newUserWithID is newUser that also returns the user's id.
func (s *stack) newUserWithID(t *testing.T) (string, string) {
	t.Helper()
	u, token := s.createUser(t, "starter", nil)
	return u.ID, token
}
