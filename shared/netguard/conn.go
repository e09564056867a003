package netguard

import (
	"context"
	"net"
)

// Bind ties conn to ctx: conn's deadline becomes ctx's (when it has one),
// and ctx's end closes conn, which interrupts a pending read or write
// that no deadline covers. The returned stop unties them; it does not
// close conn.
func Bind(ctx context.Context, conn net.Conn) (stop func() bool) {
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	return context.AfterFunc(ctx, func() { conn.Close() })
}
