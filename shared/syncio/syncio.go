// Package syncio has the two small writers that several goroutines and
// processes share: a writer that serialises writes to another, and a buffer
// that a test writes and reads concurrently.
package syncio

import (
	"bytes"
	"io"
	"sync"
)

// Writer serialises the writes of several loggers or copiers to W, so
// their lines never interleave mid-line.
type Writer struct {
	mu sync.Mutex
	W  io.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// Buffer is a bytes.Buffer safe for concurrent writers and readers: the logs
// of a stack's goroutines and processes, read by the test that started them.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
