// Reading and cancelling scans: GET /api/scans, GET and DELETE
// /api/scans/{id}.

package api

import (
	"context"
	"net/http"
	"time"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/domainname"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/store"
)

// The scan endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	scanLister interface {
		ListScans(ctx context.Context, userID string, page store.Page, f store.ScanFilter) ([]scans.Scan, string, error)
	}
	scanDetailReader interface {
		GetScanDetail(ctx context.Context, userID, id string) (store.ScanDetail, error)
	}
	scanCanceller interface {
		RequestCancel(ctx context.Context, userID, id string, now time.Time) (scans.Scan, error)
	}
)

// listScans is a page of the caller's scans, newest first, by ?status= and
// ?target= (422 naming the parameter otherwise).
func listScans(st scanLister) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		page, err := PageOf(r)
		if err != nil {
			return err
		}
		f, err := scanFilterOf(r)
		if err != nil {
			return err
		}
		list, next, err := st.ListScans(r.Context(), p.User.ID, page, f)
		if err != nil {
			return err
		}
		return writePage(w, r, page, list, next, renderScan)
	}
}

func scanFilterOf(r *http.Request) (store.ScanFilter, error) {
	var f store.ScanFilter
	q := r.URL.Query()
	if v := q.Get("status"); v != "" {
		if !scans.ValidStatus(v) {
			return f, apierr.Field("status", "must be one of queued, running, completed, failed, cancelled")
		}
		f.Status = scans.Status(v)
	}
	if v := q.Get("target"); v != "" {
		domain, err := domainname.Normalize(v)
		if err != nil {
			return f, apierr.Field("target", "%s", err.Error())
		}
		f.Target = domain
	}
	return f, nil
}

func scanID(r *http.Request) (string, error) {
	return httpapi.PathID(r, ids.Scan, ids.Valid, "Scan")
}

// getScan is the caller's scan with everything it found; another user's id
// is the store's 404, worded as for a missing one.
func getScan(st scanDetailReader) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		id, err := scanID(r)
		if err != nil {
			return err
		}
		d, err := st.GetScanDetail(r.Context(), p.User.ID, id)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, renderScanDetail(d))
		return nil
	}
}

// cancelScan requests the cancellation of a queued or running scan (202);
// an ended one is the store's 409.
func cancelScan(st scanCanceller, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		id, err := scanID(r)
		if err != nil {
			return err
		}
		sc, err := st.RequestCancel(r.Context(), p.User.ID, id, now())
		if err != nil { // not found, or an *ErrTerminal (409)
			return err
		}
		httpapi.Logger(r.Context()).InfoContext(r.Context(), "scan cancellation requested", "scan_id", id, "status", sc.Status)
		httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
		return nil
	}
}
