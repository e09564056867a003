package tooldef

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"secscan/shared/tools"
)

func TestBase(t *testing.T) {
	t.Parallel()
	b := New("port_scan", 3, 18*time.Second)
	if b.Name() != "port_scan" || b.Cost() != 3 || b.Timeout() != 18*time.Second {
		t.Errorf("Base = %q, %d, %s; want port_scan, 3, 18s", b.Name(), b.Cost(), b.Timeout())
	}
}

// TestRunOnHostPortNeedsADialer: without a guarded dialer nothing is
// probed, and the error names the tool.
func TestRunOnHostPortNeedsADialer(t *testing.T) {
	t.Parallel()
	b := New("probe_tool", 1, 5*time.Second)
	_, err := b.RunOnHostPort(context.Background(), tools.Env{Domain: "scan.test"}, json.RawMessage(`{"host": "scan.test"}`), 22,
		func(context.Context, string, int) (tools.Result, error) {
			t.Error("probed without a dialer")
			return tools.Result{}, nil
		})
	if err == nil || err.Error() != "probe_tool: the environment has no dialer" {
		t.Errorf("error = %v", err)
	}
}
