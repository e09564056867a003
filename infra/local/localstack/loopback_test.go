package localstack_test

import (
	"testing"

	"secscan/infra/local/localstack"
)

// The development identity provider mints sessions for any email: the stack
// serving it must refuse to listen where other machines reach it.
func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"127.0.0.1:3000": true, "127.5.6.7:80": true, "[::1]:3000": true, "localhost:3000": true,
		"0.0.0.0:3000": false, ":3000": false, "[::]:3000": false, "192.168.1.10:3000": false,
		"10.0.0.1:3000": false, "example.com:3000": false, "127.0.0.1": false,
	} {
		if err := localstack.LoopbackOnly(addr); (err == nil) != ok {
			t.Errorf("LoopbackOnly(%q) = %v, want allowed=%v", addr, err, ok)
		}
	}
}
