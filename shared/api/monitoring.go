package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/scans"
)

// ledgerEntryJSON is one issue of a target's ledger (CONTRACT "Monitoring:
// schedules, triage, assets"). triage is the decision as it applies now:
// null when there is none, it says open, or an acceptance has expired.
type ledgerEntryJSON struct {
	Key         string          `json:"key"`
	Check       scans.CheckCode `json:"check"`
	CVE         *string         `json:"cve"`
	Title       string          `json:"title"`
	Severity    scans.Severity  `json:"severity"`
	Status      string          `json:"status"`
	FirstSeenAt string          `json:"first_seen_at"`
	LastSeenAt  string          `json:"last_seen_at"`
	LastScanID  string          `json:"last_scan_id"`
	FixedAt     *string         `json:"fixed_at"`
	Triage      *scans.Triage   `json:"triage"`
}

func renderLedgerEntry(e scans.LedgerEntry, now time.Time) ledgerEntryJSON {
	return ledgerEntryJSON{Key: e.Key, Check: e.Check, CVE: e.CVE, Title: e.Title, Severity: e.Severity, Status: e.Status,
		FirstSeenAt: timestamp(e.FirstSeenAt), LastSeenAt: timestamp(e.LastSeenAt), LastScanID: e.LastScanID,
		FixedAt: optionalTimestamp(e.FixedAt), Triage: e.Triage.Effective(now)}
}

// The ledger endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls; the target is read first, so another
// user's target id is a 404 before any ledger is read.
type (
	issueLister interface {
		targetGetter
		IssueLedger(ctx context.Context, targetID string) ([]scans.LedgerEntry, error)
	}
	issueTriager interface {
		targetGetter
		SetTriage(ctx context.Context, targetID, issueKey string, t scans.Triage) (scans.LedgerEntry, error)
	}
	assetLister interface {
		targetGetter
		Assets(ctx context.Context, targetID string) (scans.Assets, error)
	}
)

// listTargetIssues is GET /api/targets/{id}/issues (?status=open|fixed,
// ?state=open|accepted_risk|false_positive).
func listTargetIssues(st issueLister, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		filter, err := parseIssueFilter(r.URL.Query())
		if err != nil {
			return err
		}
		t, err := ownedTarget(r, p, st)
		if err != nil {
			return err
		}
		ledger, err := st.IssueLedger(r.Context(), t.ID)
		if err != nil {
			return err
		}
		at := now()
		out := make([]ledgerEntryJSON, 0, len(ledger))
		for _, e := range ledger {
			if je := renderLedgerEntry(e, at); filter.keeps(je) {
				out = append(out, je)
			}
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

// issueFilter is a ledger query's filters; an empty field keeps every entry.
type issueFilter struct{ status, state string }

func parseIssueFilter(q url.Values) (issueFilter, error) {
	f := issueFilter{status: q.Get("status"), state: q.Get("state")}
	if f.status != "" && f.status != scans.IssueOpen && f.status != scans.IssueFixed {
		return f, apierr.Field("status", "must be open or fixed")
	}
	if f.state != "" && !validTriageState(f.state) {
		return f, apierr.Field("state", "must be open, accepted_risk or false_positive")
	}
	return f, nil
}

// keeps says whether a rendered entry passes the filter; an entry without
// triage (or whose triage expired) is in state open.
func (f issueFilter) keeps(je ledgerEntryJSON) bool {
	if f.status != "" && je.Status != f.status {
		return false
	}
	state := scans.TriageOpen
	if je.Triage != nil {
		state = je.Triage.State
	}
	return f.state == "" || state == f.state
}

func validTriageState(s string) bool {
	return s == scans.TriageOpen || s == scans.TriageAcceptedRisk || s == scans.TriageFalsePositive
}

type triageUpdate struct {
	State     *string `json:"state"`
	Reason    *string `json:"reason"`
	ExpiresAt *string `json:"expires_at"`
}

// maxIssueKey bounds an issue key in a path (check code and CVE).
const maxIssueKey = 200

// putTargetIssue is PUT /api/targets/{id}/issues/{key}: the triage of one
// issue of the target's ledger.
func putTargetIssue(st issueTriager, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		t, err := ownedTarget(r, p, st)
		if err != nil {
			return err
		}
		issueKey := r.PathValue("key")
		if issueKey == "" || len(issueKey) > maxIssueKey || !utf8.ValidString(issueKey) || strings.ContainsAny(issueKey, "#/") {
			return apierr.New(apierr.NotFound, "Issue %s not found", quote(issueKey))
		}
		var in triageUpdate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		at := now().UTC()
		tr, err := checkTriage(in, at)
		if err != nil {
			return err
		}
		tr.UpdatedBy = p.User.ID
		e, err := st.SetTriage(r.Context(), t.ID, issueKey, tr)
		if err != nil {
			return err
		}
		httpapi.Logger(r.Context()).InfoContext(r.Context(), "issue triaged", "target_id", t.ID, "issue", issueKey, "state", tr.State)
		httpapi.WriteJSON(w, http.StatusOK, renderLedgerEntry(e, at))
		return nil
	}
}

// checkTriage validates a triage body (422 naming the field).
func checkTriage(in triageUpdate, now time.Time) (scans.Triage, error) {
	if in.State == nil {
		return scans.Triage{}, apierr.Field("state", "is required (open, accepted_risk or false_positive)")
	}
	if !validTriageState(*in.State) {
		return scans.Triage{}, apierr.Field("state", "must be open, accepted_risk or false_positive")
	}
	tr := scans.Triage{State: *in.State, UpdatedAt: timestamp(now)}
	var err error
	if tr.Reason, err = checkTriageReason(in.Reason, tr.State); err != nil {
		return scans.Triage{}, err
	}
	if tr.ExpiresAt, err = checkTriageExpiry(in.ExpiresAt, tr.State, now); err != nil {
		return scans.Triage{}, err
	}
	return tr, nil
}

// checkTriageReason trims a triage's reason: required unless the state is
// open, at most scans.MaxTriageReason characters, no control characters
// but newlines and tabs.
func checkTriageReason(reason *string, state string) (string, error) {
	if reason == nil {
		if state != scans.TriageOpen {
			return "", apierr.Field("reason", "is required for %s", state)
		}
		return "", nil
	}
	r := strings.TrimSpace(*reason)
	switch {
	case r == "":
		return "", apierr.Field("reason", "must not be empty")
	case utf8.RuneCountInString(r) > scans.MaxTriageReason:
		return "", apierr.Field("reason", "must be at most %d characters", scans.MaxTriageReason)
	case strings.ContainsFunc(r, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }):
		return "", apierr.Field("reason", "must not contain control characters")
	}
	return r, nil
}

// checkTriageExpiry checks an accepted risk's expiry: an RFC 3339 time in
// the future, allowed with accepted_risk only.
func checkTriageExpiry(expires *string, state string, now time.Time) (*string, error) {
	if expires == nil {
		return nil, nil
	}
	if state != scans.TriageAcceptedRisk {
		return nil, apierr.Field("expires_at", "is allowed only with accepted_risk")
	}
	exp, err := time.Parse(time.RFC3339, *expires)
	if err != nil {
		return nil, apierr.Field("expires_at", "must be an RFC 3339 timestamp")
	}
	if !exp.After(now) {
		return nil, apierr.Field("expires_at", "must be in the future")
	}
	v := timestamp(exp)
	return &v, nil
}

// quote renders an issue key of the path for a detail (apierr.Quote).
func quote(s string) string { return apierr.Quote(s) }

type assetHostJSON struct {
	Name        string   `json:"name"`
	Addresses   []string `json:"addresses"`
	Sources     []string `json:"sources"`
	FirstSeenAt string   `json:"first_seen_at"`
	LastSeenAt  string   `json:"last_seen_at"`
}

type assetServiceJSON struct {
	Host        string `json:"host"`
	Port        int    `json:"port"`
	Protocol    string `json:"protocol"`
	Product     string `json:"product"`
	Version     string `json:"version"`
	FirstSeenAt string `json:"first_seen_at"`
	LastSeenAt  string `json:"last_seen_at"`
}

type assetsJSON struct {
	Hosts    []assetHostJSON    `json:"hosts"`
	Services []assetServiceJSON `json:"services"`
}

// listTargetAssets is GET /api/targets/{id}/assets: the hosts and services
// of the target's completed scans, with first and last seen.
func listTargetAssets(st assetLister) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		t, err := ownedTarget(r, p, st)
		if err != nil {
			return err
		}
		as, err := st.Assets(r.Context(), t.ID)
		if err != nil {
			return err
		}
		out := assetsJSON{Hosts: make([]assetHostJSON, 0, len(as.Hosts)), Services: make([]assetServiceJSON, 0, len(as.Services))}
		for _, h := range as.Hosts {
			out.Hosts = append(out.Hosts, assetHostJSON{Name: h.Name, Addresses: nonNil(h.Addresses), Sources: nonNil(h.Sources),
				FirstSeenAt: timestamp(h.FirstSeenAt), LastSeenAt: timestamp(h.LastSeenAt)})
		}
		for _, v := range as.Services {
			out.Services = append(out.Services, assetServiceJSON{Host: v.Host, Port: v.Port, Protocol: v.Protocol,
				Product: v.Product, Version: v.Version, FirstSeenAt: timestamp(v.FirstSeenAt), LastSeenAt: timestamp(v.LastSeenAt)})
		}
		httpapi.WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
