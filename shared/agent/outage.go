package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"secscan/shared/dependency"
)

// OutageLimit is how long a dependency may fail before a scan gives up on it.
// Shorter outages only delay the scan: its Task fails with TransientError and
// the state machine retries it with backoff (the agent's writes are
// idempotent). Once this process has seen the dependency failing for longer,
// the Task fails with OutageError, which the state machine does not retry:
// FailScan records what was kept.
const OutageLimit = 30 * time.Second

// OutageError ends a scan whose dependency has been failing for longer than
// OutageLimit. Its message is what FailScan reads back from the caught error.
type OutageError struct {
	Service dependency.Service
	Down    time.Duration
	Err     error
}

func (e *OutageError) Error() string {
	return fmt.Sprintf("%s did not answer for %ds: %v", e.Service, int(e.Down.Seconds()), e.Err)
}
func (e *OutageError) Unwrap() error { return e.Err }

// retryable classifies the error of an action for the state machine: a
// dependency outage shorter than OutageLimit is a TransientError (retried), a
// longer one an OutageError (caught, the scan fails), except for the actions
// that end a scan, which keep trying for as long as the state machine lets
// them so that the scan's end is recorded.
func retryable(action string, err error) error {
	dep, ok := dependency.Failed(err)
	if !ok {
		return err
	}
	if dep.Down >= OutageLimit && action != ActionFail && action != ActionCancel && action != ActionComplete {
		return &OutageError{Service: dep.Service, Down: dep.Down, Err: err}
	}
	return &TransientError{Err: err}
}

var outageMessage = regexp.MustCompile(`^(` + string(dependency.Database) + `|` + string(dependency.Scans) + `|` +
	string(dependency.Model) + `) did not answer for (\d+)s: `)

// outageReason is the customer-readable end of a scan stopped by an outage
// (cause is the caught error's Cause, Lambda's error document), or "" when
// cause is not an OutageError's. It reads the scan to say what was kept; if
// that fails, so does the action, and the state machine tries again.
func (a *Agent) outageReason(ctx context.Context, t Task, cause string) (string, error) {
	var doc struct {
		Message string `json:"errorMessage"`
	}
	if json.Unmarshal([]byte(cause), &doc) != nil {
		return "", nil
	}
	m := outageMessage.FindStringSubmatch(doc.Message)
	if m == nil {
		return "", nil
	}
	secs, _ := strconv.Atoi(m[2])
	what := fmt.Sprintf("%s did not answer for %s", dependency.Service(m[1]).Title(), seconds(secs))
	sc, err := a.Store.GetScan(ctx, t.UserID, t.ScanID)
	if err != nil {
		return "", fmt.Errorf("fail %s: %w", t.ScanID, err)
	}
	if sc.StepsCount == 0 {
		return what + "; the scan stopped before its first step was recorded.", nil
	}
	return fmt.Sprintf("%s; the scan stopped after %s; %s.", what, count(sc.StepsCount, "step", "steps"), kept(sc.FindingsCount)), nil
}

func seconds(n int) string {
	if n >= 120 {
		return fmt.Sprintf("%d minutes", n/60)
	}
	return count(n, "second", "seconds")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func kept(findings int) string {
	switch findings {
	case 0:
		return "no findings had been recorded"
	case 1:
		return "the finding so far is kept"
	}
	return fmt.Sprintf("the %d findings so far are kept", findings)
}
