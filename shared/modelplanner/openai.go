package modelplanner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"secscan/shared/planner"
)

// OpenAI is the Client of an OpenAI-compatible chat-completions API with
// tools (vLLM, llama.cpp server, Ollama, …), for teams that host their own
// model. The server is the operator's, not a scan target, so it is reached
// with a plain bounded HTTP client rather than the guarded dialer.
type OpenAI struct {
	BaseURL string // e.g. http://127.0.0.1:8000/v1
	APIKey  string
	HTTP    *http.Client
	Budget  struct {
		MaxAttempts int
		MaxBackoff  time.Duration
	}
}

// NewOpenAI returns the client of the server at baseURL, bounded like
// Bedrock's (CallBudget).
func NewOpenAI(baseURL, apiKey string) *OpenAI {
	c := &OpenAI{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, HTTP: &http.Client{Timeout: CallBudget.Attempt}}
	c.Budget.MaxAttempts, c.Budget.MaxBackoff = CallBudget.MaxAttempts, CallBudget.MaxBackoff
	return c
}

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type oaRequest struct {
	Model      string      `json:"model"`
	Messages   []oaMessage `json:"messages"`
	Tools      []oaTool    `json:"tools,omitempty"`
	ToolChoice any         `json:"tool_choice,omitempty"`
	MaxTokens  int         `json:"max_tokens"`
}

type oaResponse struct {
	Choices []struct {
		Message      oaMessage `json:"message"`
		FinishReason string    `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func str(s string) *string { return &s }

// Converse implements Client.
func (c *OpenAI) Converse(ctx context.Context, r Request) (Response, error) {
	body, err := json.Marshal(oaRequestOf(r))
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, CallBudget.Operation)
	defer cancel()
	out, err := c.send(ctx, r.Model, body)
	if err != nil {
		return Response{}, err
	}
	return out.response()
}

// oaRequestOf is the chat completions request of r.
func oaRequestOf(r Request) oaRequest {
	req := oaRequest{Model: r.Model, MaxTokens: r.MaxTokens, Messages: []oaMessage{{Role: "system", Content: str(r.System)}}}
	for _, m := range r.Messages {
		req.Messages = append(req.Messages, oaMessages(m)...)
	}
	for _, t := range r.Tools {
		var ot oaTool
		ot.Type = "function"
		ot.Function.Name, ot.Function.Description, ot.Function.Parameters = t.Name, t.Description, t.Schema
		req.Tools = append(req.Tools, ot)
	}
	if r.ToolChoice != "" {
		req.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": r.ToolChoice}}
	}
	return req
}

// oaMessages are the chat messages of one message: its tool results, each
// a message of its own, before its text and tool calls.
func oaMessages(m Message) []oaMessage {
	var out []oaMessage
	var text []string
	var calls []oaToolCall
	for _, b := range m.Blocks {
		switch {
		case b.ToolUse != nil:
			tc := oaToolCall{ID: b.ToolUse.ID, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = b.ToolUse.Name, string(b.ToolUse.Input)
			calls = append(calls, tc)
		case b.ToolResult != nil:
			out = append(out, oaMessage{Role: "tool", ToolCallID: b.ToolResult.ID, Content: str(b.ToolResult.Text)})
		default:
			text = append(text, b.Text)
		}
	}
	switch {
	case m.Role == Assistant:
		msg := oaMessage{Role: "assistant", ToolCalls: calls}
		if len(text) > 0 {
			msg.Content = str(strings.Join(text, "\n"))
		}
		out = append(out, msg)
	case len(text) > 0:
		out = append(out, oaMessage{Role: "user", Content: str(strings.Join(text, "\n\n"))})
	}
	return out
}

// send posts body, retrying throttling and server errors with full jitter
// within the operation's deadline, until c.Budget.MaxAttempts.
func (c *OpenAI) send(ctx context.Context, model string, body []byte) (oaResponse, error) {
	var out oaResponse
	for attempt := 1; ; attempt++ {
		status, raw, err := c.post(ctx, body)
		if err == nil && status == http.StatusOK {
			if err := json.Unmarshal(raw, &out); err != nil {
				return out, fmt.Errorf("model %s: unreadable answer: %w", model, err)
			}
			return out, nil
		}
		if err := oaRefusal(status, model); err != nil {
			return out, err
		}
		if !oaRetryable(status, err) || attempt >= c.Budget.MaxAttempts {
			return out, fmt.Errorf("model %s: %w", model, oaFailure(status, err))
		}
		if err := c.backoff(ctx, attempt); err != nil {
			return out, fmt.Errorf("model %s: %w", model, err)
		}
	}
}

// oaRetryable reports whether a failed post is worth another attempt: a
// transport error, throttling or a server error.
func oaRetryable(status int, err error) bool {
	return err != nil || status == http.StatusTooManyRequests || status >= 500
}

// oaFailure is the error of a failed post: its own, or the HTTP status.
func oaFailure(status int, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("HTTP %d", status)
}

// backoff waits before attempt+1, with full jitter, unless ctx ends first
// (its error then).
func (c *OpenAI) backoff(ctx context.Context, attempt int) error {
	wait := time.Duration(rand.Int64N(int64(min(c.Budget.MaxBackoff, 100*time.Millisecond<<attempt)) + 1))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// oaRefusal is the operator's mistake a status says, nil for the others.
func oaRefusal(status int, model string) error {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return &planner.ConfigError{Reason: "The scan's model is not available: the model server refused the API key"}
	case http.StatusNotFound:
		return &planner.ConfigError{Reason: "The scan's model is not available: the model server does not serve " + model}
	}
	return nil
}

// response is the first choice's text and tool calls; arguments that are
// not JSON become {} (the tool refuses what it needs and does not get).
func (out oaResponse) response() (Response, error) {
	if len(out.Choices) == 0 {
		return Response{}, errors.New("the model answered without a choice")
	}
	ch := out.Choices[0]
	resp := Response{StopReason: ch.FinishReason, Usage: Usage{InputTokens: out.Usage.PromptTokens, OutputTokens: out.Usage.CompletionTokens}}
	if ch.Message.Content != nil {
		resp.Text = *ch.Message.Content
	}
	for _, tc := range ch.Message.ToolCalls {
		input := json.RawMessage(tc.Function.Arguments)
		if !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		resp.ToolUses = append(resp.ToolUses, ToolUse{ID: tc.ID, Name: tc.Function.Name, Input: input})
	}
	return resp, nil
}

func (c *OpenAI) post(ctx context.Context, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, raw, err
}
