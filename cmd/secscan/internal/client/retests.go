package client

import (
	"context"
	"net/http"
	"net/url"

	"secscan/shared/scans"
)

// Retest is a retest of one issue (CONTRACT "Proof and retest").
type Retest struct {
	ID          string         `json:"id"`
	ScanID      string         `json:"scan_id"`
	TargetID    string         `json:"target_id"`
	IssueKey    string         `json:"issue_key"`
	Status      string         `json:"status"`
	Results     []RetestResult `json:"results"`
	CreditsUsed int            `json:"credits_used"`
	Error       *string        `json:"error"`
	// LedgerNote says why a retest that reproduced nothing left the issue
	// open in the target's ledger (a newer scan); nil otherwise.
	LedgerNote *string `json:"ledger_note"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

// RetestResult is one location's outcome (scans.RetestResult).
type RetestResult = scans.RetestResult

// CreateRetest is POST /api/scans/{id}/issues/{key}/retest.
func (c *Client) CreateRetest(ctx context.Context, scanID, issueKey string) (Retest, error) {
	var r Retest
	_, err := c.sendJSON(ctx, http.MethodPost, "/api/scans/"+url.PathEscape(scanID)+"/issues/"+url.PathEscape(issueKey)+"/retest", nil, nil, &r)
	return r, err
}

// Retest is GET /api/retests/{id}.
func (c *Client) Retest(ctx context.Context, id string) (Retest, error) {
	var r Retest
	_, err := c.sendJSON(ctx, http.MethodGet, "/api/retests/"+url.PathEscape(id), nil, nil, &r)
	return r, err
}

// CancelRetest is DELETE /api/retests/{id}: a queued retest ends at once, a
// running one stops before its next call (409 once it has ended).
func (c *Client) CancelRetest(ctx context.Context, id string) (Retest, error) {
	var r Retest
	_, err := c.sendJSON(ctx, http.MethodDelete, "/api/retests/"+url.PathEscape(id), nil, nil, &r)
	return r, err
}
