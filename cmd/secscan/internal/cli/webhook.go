package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"secscan/shared/webhookverify"
)

// maxDelivery bounds what webhook verify reads: the receiver kit's body
// limit plus room for headers.
const maxDelivery = webhookverify.MaxBody + 64<<10

func (a *app) webhookCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "webhook",
		Short:   "Check webhook deliveries",
		Example: `  secscan webhook verify --secret "$WEBHOOK_SECRET" < delivery.http`,
	}
	var secret, at string
	verify := &cobra.Command{
		Use:   "verify",
		Short: "Check a saved delivery's signature with the receiver kit",
		Long: `verify reads a saved webhook delivery on standard input — an HTTP request as
received (request line, headers, blank line, raw body), or just the headers,
a blank line and the raw body — and checks its X-Service-Signature with
shared/webhookverify: HMAC-SHA256 of "<timestamp>.<raw body>" with your signing
secret, and the timestamp within 300 s of now (or of --at, for an old delivery).

Exit 0 when the delivery is authentic, 1 when it is not, 2 when the input
cannot be read. The secret comes from --secret or SECSCAN_WEBHOOK_SECRET.`,
		Example: `  secscan webhook verify --secret "$WEBHOOK_SECRET" < delivery.http
  secscan webhook verify --at 2026-11-24T10:00:00Z < old-delivery.http   # SECSCAN_WEBHOOK_SECRET set`,
		Args: cobra.NoArgs,
		// No API call: configuration is not needed.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			secret := cmp.Or(secret, a.env.Getenv("SECSCAN_WEBHOOK_SECRET"))
			if secret == "" {
				return usageError("no signing secret: pass --secret or set SECSCAN_WEBHOOK_SECRET")
			}
			now := time.Now()
			if at != "" {
				t, err := parseTime(at)
				if err != nil {
					return usageError("--at: %v", err)
				}
				now = t
			}
			header, body, err := a.readDelivery()
			if err != nil {
				return err
			}
			return a.reportVerification(header, body, webhookverify.Verify(secret, header, body, now))
		},
	}
	verify.Flags().StringVar(&secret, "secret", "", "the webhook signing secret, whsec_… (or SECSCAN_WEBHOOK_SECRET)")
	verify.Flags().StringVar(&at, "at", "", "check freshness as of this time (RFC 3339 or Unix seconds) instead of now")
	cmd.AddCommand(verify)
	return cmd
}

// readDelivery reads the saved delivery on stdin (at most maxDelivery
// bytes): its headers and raw body.
func (a *app) readDelivery() (http.Header, []byte, error) {
	raw, err := io.ReadAll(io.LimitReader(a.env.Stdin, maxDelivery+1))
	if err != nil {
		return nil, nil, withCode(ExitError, fmt.Errorf("reading the delivery: %w", err))
	}
	if len(raw) > maxDelivery {
		return nil, nil, usageError("the delivery is larger than %d bytes", maxDelivery)
	}
	header, body, err := parseDelivery(raw)
	if err != nil {
		return nil, nil, usageError("reading the delivery: %v", err)
	}
	return header, body, nil
}

// reportVerification prints the verdict on a delivery (verr nil: authentic)
// with its delivery id, scan and status; an invalid one exits 1.
func (a *app) reportVerification(header http.Header, body []byte, verr error) error {
	var d webhookverify.Delivery
	_ = jsonUnmarshal(body, &d)
	result := map[string]any{"valid": verr == nil, "delivery": header.Get(webhookverify.HeaderDelivery),
		"scan_id": d.ScanID, "status": d.Status}
	if verr != nil {
		result["error"] = verr.Error()
	}
	switch {
	case a.jsonOut:
		if err := a.printJSON(result); err != nil {
			return err
		}
	case verr == nil:
		fmt.Fprintf(a.out(), "valid: delivery %s for scan %s (%s), signed with this secret\n",
			orDash(header.Get(webhookverify.HeaderDelivery)), orDash(d.ScanID), orDash(d.Status))
	default:
		fmt.Fprintf(a.out(), "invalid: %v\n", verr)
	}
	if verr != nil {
		return withCode(ExitGate, nil)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func parseTime(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	return time.Parse(time.RFC3339, s)
}

// parseDelivery splits a saved delivery into headers and the raw body. A
// request line is optional; the body is cut at Content-Length when the
// headers give one (a saved file may end with an extra newline).
func parseDelivery(raw []byte) (http.Header, []byte, error) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(withoutRequestLine(raw))))
	mime, err := r.ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("headers: %w", err)
	}
	header := http.Header(mime)
	if header.Get(webhookverify.HeaderSignature) == "" {
		return nil, nil, fmt.Errorf("no %s header", webhookverify.HeaderSignature)
	}
	body, err := io.ReadAll(r.R)
	if err != nil {
		return nil, nil, err
	}
	if body, err = cutAtLength(header.Get("Content-Length"), body); err != nil {
		return nil, nil, err
	}
	return header, body, nil
}

// withoutRequestLine drops the leading blank lines and the request line,
// when the saved delivery starts with one.
func withoutRequestLine(raw []byte) []byte {
	raw = bytes.TrimLeft(raw, "\r\n")
	if line, _, ok := bytes.Cut(raw, []byte("\n")); ok && isRequestLine(string(bytes.TrimRight(line, "\r"))) {
		raw = raw[len(line)+1:]
	}
	return raw
}

// cutAtLength cuts body at the Content-Length cl when there is one; a
// length the body cannot hold is an error.
func cutAtLength(cl string, body []byte) ([]byte, error) {
	if cl == "" {
		return body, nil
	}
	n, err := strconv.Atoi(cl)
	if err != nil || n < 0 || n > len(body) {
		return nil, fmt.Errorf("Content-Length %q does not fit the %d bytes of body", cl, len(body))
	}
	return body[:n], nil
}

func isRequestLine(l string) bool {
	parts := strings.Fields(l)
	return len(parts) == 3 && strings.HasPrefix(parts[2], "HTTP/") && !strings.Contains(parts[0], ":")
}
