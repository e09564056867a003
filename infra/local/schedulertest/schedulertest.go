// Package schedulertest is a local HTTP server that speaks the wire protocol
// of Amazon EventBridge Scheduler (REST-JSON) for the three calls the
// service makes: CreateSchedule (POST /schedules/{Name}), UpdateSchedule
// (PUT /schedules/{Name}) and DeleteSchedule (DELETE
// /schedules/{Name}?groupName=…). Point the SDK at it with BaseEndpoint. It
// keeps the schedules it holds, records every request for assertions, and
// can be told to fail with a status code (a 5xx: the service unavailable).
package schedulertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one call the server received.
type Request struct {
	Method, Name, Group string
	// Body is the decoded JSON body (Create and Update).
	Body map[string]any
}

// Server is the fake EventBridge Scheduler.
type Server struct {
	URL string

	mu        sync.Mutex
	requests  []Request
	schedules map[string]map[string]any // group/name -> the last definition
	fail      int
}

// Start starts a server for the test's lifetime.
func Start(t testing.TB) *Server {
	s := &Server{schedules: map[string]map[string]any{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Fail makes every later call answer status (0: answer normally again).
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = status
}

// Requests returns the calls received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Schedule returns the definition the server holds for group/name.
func (s *Server) Schedule(group, name string) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.schedules[group+"/"+name]
	return d, ok
}

// Len is the number of schedules the server holds.
func (s *Server) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.schedules)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"Message": message})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	req, ok := parseRequest(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if s.fail != 0 {
		writeError(w, s.fail, "InternalServerException", "injected failure")
		return
	}
	s.apply(w, req)
}

// parseRequest reads the schedule's name, group and (POST, PUT) body; it
// answers the error itself when r is not a schedule request.
func parseRequest(w http.ResponseWriter, r *http.Request) (Request, bool) {
	name, ok := strings.CutPrefix(r.URL.Path, "/schedules/")
	if !ok || name == "" {
		writeError(w, http.StatusNotFound, "UnknownOperationException", "unknown path "+r.URL.Path)
		return Request{}, false
	}
	req := Request{Method: r.Method, Name: name, Group: r.URL.Query().Get("groupName")}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			writeError(w, http.StatusBadRequest, "ValidationException", "body is not JSON")
			return Request{}, false
		}
		req.Group, _ = req.Body["GroupName"].(string)
	}
	if req.Group == "" {
		req.Group = "default"
	}
	return req, true
}

// apply creates (POST), updates (PUT) or deletes (DELETE) the schedule, as
// EventBridge Scheduler would: creating one that exists is a conflict,
// changing one that does not is not found.
func (s *Server) apply(w http.ResponseWriter, req Request) {
	key := req.Group + "/" + req.Name
	_, exists := s.schedules[key]
	switch {
	case req.Method == http.MethodPost && exists:
		writeError(w, http.StatusConflict, "ConflictException", "schedule "+req.Name+" already exists")
		return
	case (req.Method == http.MethodPut || req.Method == http.MethodDelete) && !exists:
		writeError(w, http.StatusNotFound, "ResourceNotFoundException", "schedule "+req.Name+" does not exist")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch req.Method {
	case http.MethodPost, http.MethodPut:
		s.schedules[key] = req.Body
		_ = json.NewEncoder(w).Encode(map[string]string{"ScheduleArn": "arn:aws:scheduler:us-east-1:123456789012:schedule/" + key})
	case http.MethodDelete:
		delete(s.schedules, key)
		_, _ = io.WriteString(w, "{}")
	default:
		writeError(w, http.StatusMethodNotAllowed, "UnknownOperationException", req.Method)
	}
}
