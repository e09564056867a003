// Package modelplanner is the model-driven planner of the scan agent: a
// language model, reached through one small interface (Client) with two
// adapters (Amazon Bedrock Converse, OpenAI-compatible chat completions),
// chooses the next tool call from the scan's state. The deterministic
// playbook (shared/planner) is the floor: its calls run first, within
// FloorBudget (75 % of the budget); the rest is the model's, to verify
// tentative findings and follow evidence, with the summary's reserve kept.
// Its proposals are untrusted input (refusal.go): what is out of scope or
// invalid is a refused step, never run. A model error or a garbage answer
// hands the scan back to the playbook.
//
// The conversation is not kept anywhere of its own: every turn rebuilds it
// from what the scan stored in DynamoDB (steps with the model's reasoning,
// findings, surface), compacted, so it survives any number of invocations
// and stays within the model's context and DynamoDB's item limit.
package modelplanner

import (
	"context"
	"encoding/json"
)

// Client sends one conversation turn to a model.
type Client interface {
	Converse(ctx context.Context, r Request) (Response, error)
}

// Request is one turn: the system text, the conversation and the tools.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// ToolChoice names the one tool the model must call ("" = any or none).
	ToolChoice string
}

// Role is who wrote a message.
type Role string

// The roles of a conversation.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one message of the conversation.
type Message struct {
	Role   Role
	Blocks []Block
}

// Block is one content block: text, a tool call or a tool's result.
type Block struct {
	Text       string
	ToolUse    *ToolUse
	ToolResult *ToolResult
}

// ToolUse is a tool call the model asked for.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult answers a ToolUse.
type ToolResult struct {
	ID    string
	Text  string
	Error bool
}

// ToolSpec is a tool as a model sees it.
type ToolSpec struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Response is the model's answer.
type Response struct {
	Text       string
	ToolUses   []ToolUse
	StopReason string
	Usage      Usage
}

// Usage is the tokens one call used.
type Usage struct{ InputTokens, OutputTokens int }
