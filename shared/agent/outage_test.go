package agent_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"secscan/shared/agent"
	"secscan/shared/dependency"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// A Task whose database does not answer fails with TransientError (the state
// machine retries it); the reason FailScan records for an OutageError names
// the database and what the scan kept, read from the scan itself.
func TestOutages(t *testing.T) {
	t.Parallel()
	stalled := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(stalled.Close)
	db, err := store.NewClient(context.Background(), stalled.URL)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	down := *f.a
	down.Store = store.New(db, "t")
	_, err = down.Handle(context.Background(), agent.Task{Action: agent.ActionPlan, ScanID: "scn_x", UserID: f.user})
	var transient *agent.TransientError
	if dep, ok := dependency.Failed(err); !errors.As(err, &transient) || !ok || dep.Service != dependency.Database {
		t.Fatalf("plan against a stalled database: %v, want a TransientError naming the database", err)
	}

	sc := f.running(50)
	run := f.task(agent.ActionRun, sc)
	run.Step = planned("probe", `{}`, 1)
	f.do(run)
	fail := f.task(agent.ActionFail, sc)
	fail.Error = &agent.CaughtErr{Error: "OutageError",
		Cause: `{"errorMessage":"database did not answer for 125s: run scn step 2: dynamodb get item: internal detail","errorType":"OutageError"}`}
	f.do(fail)
	want := "The database did not answer for 2 minutes; the scan stopped after 1 step; the finding so far is kept."
	if d := f.get(sc); d.Scan.Status != scans.Failed || d.Scan.Error != want {
		t.Fatalf("ended %s with %q, want %q", d.Scan.Status, d.Scan.Error, want)
	}

	other := f.running(50)
	fail = f.task(agent.ActionFail, other)
	fail.Error = &agent.CaughtErr{Error: "TransientError", Cause: `{"errorMessage":"database unavailable: x","errorType":"TransientError"}`}
	f.do(fail)
	if d := f.get(other); !strings.HasPrefix(d.Scan.Error, "A service the scan depends on kept failing") {
		t.Fatalf("retries exhausted: %q", d.Scan.Error)
	}
}
