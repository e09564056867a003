// Package modeltest serves scripted language models on loopback, speaking
// the wire protocols the model planner uses: Amazon Bedrock's Converse
// (POST /model/<id>/converse) and OpenAI-compatible chat completions
// (POST /v1/chat/completions). Bedrock is a paid external API, so tests
// run against this server instead; it records every request it receives so
// tests can assert on what the planner sent (tool config, delimited tool
// results, no secrets).
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Reply is one scripted answer, rendered in the server's protocol.
type Reply struct {
	Kind  Kind
	Text  string
	Tool  string
	Input any // the tool's input; a string is sent as is (malformed input)
	// Tokens the answer reports using; Estimated input tokens are the
	// request's size over 4 (the usual characters per token of English
	// text and JSON), for realistic figures.
	InputTokens, OutputTokens int
}

// Kind is what a reply does.
type Kind int

// The kinds of reply.
const (
	EndTurn  Kind = iota // text only
	UseTool              // a tool call
	Throttle             // 429 ThrottlingException
	Fail5xx              // 500 InternalServerException
	Denied               // 403 AccessDeniedException
	Garbage              // 200 with an answer that is no message
)

// Estimated as InputTokens asks the server to estimate them.
const Estimated = -1

// Call returns a tool call reply.
func Call(text, tool string, input any) Reply {
	return Reply{Kind: UseTool, Text: text, Tool: tool, Input: input, InputTokens: 3000, OutputTokens: 120}
}

// End returns an end of turn.
func End(text string) Reply {
	return Reply{Kind: EndTurn, Text: text, InputTokens: 3000, OutputTokens: 60}
}

// Request is one request the server received.
type Request struct {
	Model  string
	Header http.Header
	Body   string
}

// Script answers the n-th request (from 0).
type Script func(n int, r Request) Reply

// Server is a scripted model on 127.0.0.1.
type Server struct {
	URL    string
	mu     sync.Mutex
	reqs   []Request
	script Script
	openAI bool
	close  func()
}

// Requests are the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// StartBedrock serves script as Bedrock Converse.
func StartBedrock(t testing.TB, script Script) *Server { return start(t, script, false) }

// StartOpenAI serves script as OpenAI chat completions under /v1.
func StartOpenAI(t testing.TB, script Script) *Server { return start(t, script, true) }

func start(t testing.TB, script Script, openAI bool) *Server {
	t.Helper()
	s, err := Serve(script, openAI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Serve starts a scripted model on 127.0.0.1 outside a test (the agent-eval
// harness): OpenAI chat completions when openAI, else Bedrock Converse.
// Close stops it.
func Serve(script Script, openAI bool) (*Server, error) {
	s := &Server{script: script, openAI: openAI}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	s.URL, s.close = srv.URL, srv.Close
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	if s.close != nil {
		s.close()
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	model, ok := s.modelOf(r, body)
	if !ok {
		http.Error(w, "unknown path "+r.URL.Path, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	req := Request{Model: model, Header: r.Header.Clone(), Body: string(body)}
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	reply := s.script(n, req)
	if reply.InputTokens == Estimated {
		reply.InputTokens = len(body) / 4
	}
	if s.openAI {
		s.openAIReply(w, n, reply)
	} else {
		s.bedrockReply(w, n, reply)
	}
}

// modelOf is the model a request asks for: the body's "model" of an
// OpenAI chat completion, the path's model of a Bedrock Converse call;
// false for a path of the other API, or none.
func (s *Server) modelOf(r *http.Request, body []byte) (string, bool) {
	if s.openAI {
		if r.URL.Path != "/v1/chat/completions" {
			return "", false
		}
		var in struct{ Model string }
		_ = json.Unmarshal(body, &in)
		return in.Model, true
	}
	raw, ok := strings.CutPrefix(r.URL.EscapedPath(), "/model/")
	if !ok || !strings.HasSuffix(r.URL.Path, "/converse") {
		return "", false
	}
	model, _ := url.PathUnescape(strings.TrimSuffix(raw, "/converse"))
	return model, true
}

func (s *Server) bedrockReply(w http.ResponseWriter, n int, rep Reply) {
	w.Header().Set("Content-Type", "application/json")
	fault := func(status int, kind, msg string) {
		w.Header().Set("X-Amzn-ErrorType", kind)
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"message":%q}`, msg)
	}
	switch rep.Kind {
	case Throttle:
		fault(http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.")
		return
	case Fail5xx:
		fault(http.StatusInternalServerError, "InternalServerException", "internal error")
		return
	case Denied:
		fault(http.StatusForbidden, "AccessDeniedException", "You don't have access to the model with the specified model ID.")
		return
	}
	if rep.Kind == Garbage {
		fmt.Fprint(w, `{"output":{"somethingElse":{"x":1}},"stopReason":"end_turn","usage":{"inputTokens":10,"outputTokens":1,"totalTokens":11}}`)
		return
	}
	content := []any{}
	if rep.Text != "" {
		content = append(content, map[string]any{"text": rep.Text})
	}
	stop := "end_turn"
	if rep.Kind == UseTool {
		stop = "tool_use"
		var input any = rep.Input
		if s, ok := rep.Input.(string); ok {
			input = s // malformed: a string where an object belongs
		}
		content = append(content, map[string]any{"toolUse": map[string]any{
			"toolUseId": fmt.Sprintf("tooluse_%d", n), "name": rep.Tool, "input": input}})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": rep.InputTokens, "outputTokens": rep.OutputTokens, "totalTokens": rep.InputTokens + rep.OutputTokens},
		"metrics":    map[string]any{"latencyMs": 1},
	})
}

func (s *Server) openAIReply(w http.ResponseWriter, n int, rep Reply) {
	w.Header().Set("Content-Type", "application/json")
	switch rep.Kind {
	case Throttle:
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"rate limited"}}`)
		return
	case Fail5xx:
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"internal error"}}`)
		return
	case Denied:
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"invalid api key"}}`)
		return
	}
	if rep.Kind == Garbage {
		fmt.Fprint(w, `{"choices":[]}`)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	finish := "stop"
	if rep.Kind == UseTool {
		finish = "tool_calls"
		args, _ := json.Marshal(rep.Input)
		if s, ok := rep.Input.(string); ok {
			args = []byte(s)
		}
		msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": rep.Tool, "arguments": string(args)}}}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": rep.InputTokens, "completion_tokens": rep.OutputTokens, "total_tokens": rep.InputTokens + rep.OutputTokens},
	})
}
