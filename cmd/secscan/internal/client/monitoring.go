package client

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"secscan/shared/scans"
)

// ScheduleRequest is the body of POST /api/schedules.
type ScheduleRequest struct {
	Target      string `json:"target"`
	ScanType    string `json:"scan_type"`
	Tier        string `json:"tier"`
	Cadence     string `json:"cadence"`
	CallbackURL string `json:"callback_url,omitempty"`
	MaxCredits  int    `json:"max_credits,omitempty"`
}

// Schedule is a recurring scan of a target (CONTRACT "Monitoring").
type Schedule struct {
	ID          string     `json:"id"`
	Target      string     `json:"target"`
	TargetID    string     `json:"target_id"`
	ScanType    string     `json:"scan_type"`
	Tier        string     `json:"tier"`
	Cadence     string     `json:"cadence"`
	CallbackURL *string    `json:"callback_url"`
	MaxCredits  int        `json:"max_credits"`
	Enabled     bool       `json:"enabled"`
	NextRunAt   *time.Time `json:"next_run_at"`
	LastScanID  *string    `json:"last_scan_id"`
	LastError   *string    `json:"last_error"`
	CreatedAt   time.Time  `json:"created_at"`
}

// LedgerEntry is one issue of a target's issue ledger (scans.LedgerEntry).
type LedgerEntry = scans.LedgerEntry

// TriageRequest is the body of PUT /api/targets/<id>/issues/<key>.
type TriageRequest struct {
	State     string  `json:"state"`
	Reason    *string `json:"reason,omitempty"`
	ExpiresAt *string `json:"expires_at,omitempty"`
}

// CreateSchedule is POST /api/schedules.
func (c *Client) CreateSchedule(ctx context.Context, req ScheduleRequest) (Schedule, error) {
	var s Schedule
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/schedules", nil, req, &s)
	return s, err
}

// Schedules lists every schedule of the user, following the Link header.
func (c *Client) Schedules(ctx context.Context) ([]Schedule, error) {
	return list[Schedule](ctx, c, "/api/schedules?limit=200", 0)
}

// DeleteSchedule is DELETE /api/schedules/<id>.
func (c *Client) DeleteSchedule(ctx context.Context, id string) error {
	_, err := c.sendJSON(ctx, http.MethodDelete, "/api/schedules/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// RunSchedule is POST /api/schedules/<id>/run: the scan it started.
func (c *Client) RunSchedule(ctx context.Context, id string) (Scan, error) {
	var s Scan
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/schedules/"+url.PathEscape(id)+"/run", nil, nil, &s)
	return s, err
}

// TargetIssues is GET /api/targets/<id>/issues, filtered by status (open,
// fixed) and triage state when set.
func (c *Client) TargetIssues(ctx context.Context, targetID, status, state string) ([]LedgerEntry, error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if state != "" {
		q.Set("state", state)
	}
	path := "/api/targets/" + url.PathEscape(targetID) + "/issues"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out []LedgerEntry
	_, err := c.sendJSON(ctx, http.MethodGet, path, nil, nil, &out)
	return out, err
}

// SetTriage is PUT /api/targets/<id>/issues/<key>: the ledger entry after.
func (c *Client) SetTriage(ctx context.Context, targetID, key string, req TriageRequest) (LedgerEntry, error) {
	var e LedgerEntry
	_, err := c.sendJSON(ctx, http.MethodPut, "/api/targets/"+url.PathEscape(targetID)+"/issues/"+url.PathEscape(key), nil, req, &e)
	return e, err
}
