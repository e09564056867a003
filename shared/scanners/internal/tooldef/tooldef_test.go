package tooldef

import (
	"testing"
	"time"
)

func TestBase(t *testing.T) {
	t.Parallel()
	b := New("port_scan", 3, 18*time.Second)
	if b.Name() != "port_scan" || b.Cost() != 3 || b.Timeout() != 18*time.Second {
		t.Errorf("Base = %q, %d, %s; want port_scan, 3, 18s", b.Name(), b.Cost(), b.Timeout())
	}
}
