// Reading and cancelling scans: GET /api/scans, GET and DELETE
// /api/scans/{id}.

package api

import (
	"net/http"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/domainname"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/scans"
	"secscan/shared/store"
)

func (a *API) listScans(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	page, err := PageOf(r)
	if err != nil {
		return err
	}
	var f store.ScanFilter
	q := r.URL.Query()
	if v := q.Get("status"); v != "" {
		if !scans.ValidStatus(v) {
			return apierr.Field("status", "must be one of queued, running, completed, failed, cancelled")
		}
		f.Status = scans.Status(v)
	}
	if v := q.Get("target"); v != "" {
		domain, err := domainname.Normalize(v)
		if err != nil {
			return apierr.Field("target", "%s", err.Error())
		}
		f.Target = domain
	}
	list, next, err := a.Store.ListScans(r.Context(), p.User.ID, page, f)
	if err != nil {
		return err
	}
	out := make([]scanJSON, len(list))
	for i, s := range list {
		out[i] = renderScan(s)
	}
	SetNextLink(w, r, page, next)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func scanID(r *http.Request) (string, error) {
	return httpapi.PathID(r, ids.Scan, ids.Valid, "Scan")
}

func (a *API) getScan(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	id, err := scanID(r)
	if err != nil {
		return err
	}
	d, err := a.Store.GetScanDetail(r.Context(), p.User.ID, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, renderScanDetail(d))
	return nil
}

func (a *API) cancelScan(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	id, err := scanID(r)
	if err != nil {
		return err
	}
	sc, err := a.Store.RequestCancel(r.Context(), p.User.ID, id, a.Now())
	if err != nil { // not found, or an *ErrTerminal (409)
		return err
	}
	httpapi.Logger(r.Context()).InfoContext(r.Context(), "scan cancellation requested", "scan_id", id, "status", sc.Status)
	httpapi.WriteJSON(w, http.StatusAccepted, renderScan(sc))
	return nil
}
