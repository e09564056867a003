package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestBind: a read on the bound connection ends at the context's deadline,
// and the context's cancellation interrupts a read that has none.
func TestBind(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	defer server.Close()
	defer client.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	stop := Bind(ctx, client)
	defer stop()
	start := time.Now()
	_, err := client.Read(make([]byte, 1))
	// The deadline and the close on ctx's end race: either ends the read.
	if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, io.ErrClosedPipe) || time.Since(start) > 5*time.Second {
		t.Fatalf("read = %v after %s, want an error at the deadline", err, time.Since(start))
	}

	c2, s2 := net.Pipe()
	defer s2.Close()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer Bind(ctx2, c2)()
	go func() { time.Sleep(20 * time.Millisecond); cancel2() }()
	if _, err := c2.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("read after cancel = %v, want the connection closed", err)
	}
}
