package network

import (
	"context"
	"net"
	"testing"
)

// BenchmarkScan1000Ports connect-scans 1,000 loopback ports of which 5 are
// open and greet with a banner. The closed ports are ports the kernel just
// handed out and released, so no other process's servers are touched.
func BenchmarkScan1000Ports(b *testing.B) {
	env := testEnv(b, true)
	var ports []int
	for range 5 {
		ports = append(ports, startServer(b, greeter([]byte("SSH-2.0-OpenSSH_9.6\r\n"))).port)
	}
	var held []net.Listener
	for len(ports)+len(held) < 1000 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		held = append(held, ln)
	}
	for _, ln := range held {
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
	}
	input := mustJSON(b, map[string]any{"host": "ports.scan.test", "ports": ports})
	tool := New()
	b.ResetTimer()
	for b.Loop() {
		res, err := tool.Run(context.Background(), env, input)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Services) != 5 {
			b.Fatalf("%d open, want 5: %s", len(res.Services), res.Outcome)
		}
	}
}
