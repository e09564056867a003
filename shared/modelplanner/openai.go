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
	req := oaRequest{Model: r.Model, MaxTokens: r.MaxTokens, Messages: []oaMessage{{Role: "system", Content: str(r.System)}}}
	for _, m := range r.Messages {
		var text []string
		var calls []oaToolCall
		for _, b := range m.Blocks {
			switch {
			case b.ToolUse != nil:
				tc := oaToolCall{ID: b.ToolUse.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = b.ToolUse.Name, string(b.ToolUse.Input)
				calls = append(calls, tc)
			case b.ToolResult != nil:
				// Tool results are messages of their own, before the text.
				req.Messages = append(req.Messages, oaMessage{Role: "tool", ToolCallID: b.ToolResult.ID, Content: str(b.ToolResult.Text)})
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
			req.Messages = append(req.Messages, msg)
		case len(text) > 0:
			req.Messages = append(req.Messages, oaMessage{Role: "user", Content: str(strings.Join(text, "\n\n"))})
		}
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
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, CallBudget.Operation)
	defer cancel()
	var out oaResponse
	for attempt := 1; ; attempt++ {
		status, raw, err := c.post(ctx, body)
		retryable := err != nil || status == http.StatusTooManyRequests || status >= 500
		if err == nil && status == http.StatusOK {
			if err := json.Unmarshal(raw, &out); err != nil {
				return Response{}, fmt.Errorf("model %s: unreadable answer: %w", r.Model, err)
			}
			break
		}
		switch status {
		case http.StatusUnauthorized, http.StatusForbidden:
			return Response{}, &planner.ConfigError{Reason: "The scan's model is not available: the model server refused the API key"}
		case http.StatusNotFound:
			return Response{}, &planner.ConfigError{Reason: "The scan's model is not available: the model server does not serve " + r.Model}
		}
		if !retryable || attempt >= c.Budget.MaxAttempts {
			if err == nil {
				err = fmt.Errorf("HTTP %d", status)
			}
			return Response{}, fmt.Errorf("model %s: %w", r.Model, err)
		}
		// Full jitter, within the operation's deadline.
		wait := time.Duration(rand.Int64N(int64(min(c.Budget.MaxBackoff, 100*time.Millisecond<<attempt)) + 1))
		select {
		case <-ctx.Done():
			return Response{}, fmt.Errorf("model %s: %w", r.Model, ctx.Err())
		case <-time.After(wait):
		}
	}
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
			input = json.RawMessage("{}") // the tool refuses what it needs and does not get
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
