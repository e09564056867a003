package modelplanner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydocument "github.com/aws/smithy-go/document"

	"secscan/shared/dependency"
	"secscan/shared/planner"
)

// CallBudget bounds one model call: the scan agent's plan action runs within
// the function's 30 s, so an attempt gets 20 s and the call, with jittered
// retries of throttling and 5xx answers, 24 s. A call is not started when
// less than that is left (Planner.Next).
var CallBudget = dependency.Budget{Attempt: 20 * time.Second, Operation: 24 * time.Second, MaxAttempts: 4, MaxBackoff: 2 * time.Second}

// Bedrock is the Client of Amazon Bedrock's Converse API.
type Bedrock struct{ API *bedrockruntime.Client }

// NewBedrock builds the Bedrock client from the environment
// (dependency.Config): AWS_REGION picks the region and
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME points it at a local server (tests, the
// local stack).
func NewBedrock(ctx context.Context) (*Bedrock, error) {
	cfg, err := dependency.Config(ctx, "", CallBudget)
	if err != nil {
		return nil, err
	}
	return &Bedrock{API: bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) {
		o.APIOptions = append(o.APIOptions, dependency.Bound(dependency.Model, CallBudget))
		if u := dependency.ServiceEndpoint("BEDROCK_RUNTIME"); u != nil {
			o.BaseEndpoint = u
		}
	})}, nil
}

// Converse implements Client.
func (b *Bedrock) Converse(ctx context.Context, r Request) (Response, error) {
	in := &bedrockruntime.ConverseInput{
		ModelId:         aws.String(r.Model),
		System:          []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: r.System}},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(r.MaxTokens))},
	}
	for _, m := range r.Messages {
		in.Messages = append(in.Messages, bedrockMessage(m))
	}
	tc, err := bedrockTools(r)
	if err != nil {
		return Response{}, err
	}
	in.ToolConfig = tc
	out, err := b.API.Converse(ctx, in)
	if err != nil {
		return Response{}, classifyBedrock(r.Model, err)
	}
	return bedrockResponse(out)
}

// bedrockMessage is the Converse message of m.
func bedrockMessage(m Message) types.Message {
	msg := types.Message{Role: types.ConversationRoleUser}
	if m.Role == Assistant {
		msg.Role = types.ConversationRoleAssistant
	}
	for _, b := range m.Blocks {
		msg.Content = append(msg.Content, bedrockBlock(b))
	}
	return msg
}

// bedrockBlock is the Converse content block of b: a tool use (input that
// is not JSON sent as {}), a tool result or text.
func bedrockBlock(b Block) types.ContentBlock {
	switch {
	case b.ToolUse != nil:
		var v any
		if err := json.Unmarshal(b.ToolUse.Input, &v); err != nil {
			v = map[string]any{}
		}
		return &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
			ToolUseId: aws.String(b.ToolUse.ID), Name: aws.String(b.ToolUse.Name), Input: document.NewLazyDocument(v)}}
	case b.ToolResult != nil:
		status := types.ToolResultStatusSuccess
		if b.ToolResult.Error {
			status = types.ToolResultStatusError
		}
		return &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
			ToolUseId: aws.String(b.ToolResult.ID), Status: status,
			Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: b.ToolResult.Text}}}}
	}
	return &types.ContentBlockMemberText{Value: b.Text}
}

// bedrockTools is the tool configuration of r, nil when it offers none.
func bedrockTools(r Request) (*types.ToolConfiguration, error) {
	if len(r.Tools) == 0 {
		return nil, nil
	}
	tc := &types.ToolConfiguration{}
	for _, t := range r.Tools {
		var schema any
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name: aws.String(t.Name), Description: aws.String(t.Description),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)}}})
	}
	if r.ToolChoice != "" {
		tc.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(r.ToolChoice)}}
	}
	return tc, nil
}

// bedrockResponse is the text and tool uses of a Converse answer.
func bedrockResponse(out *bedrockruntime.ConverseOutput) (Response, error) {
	var resp Response
	resp.StopReason = string(out.StopReason)
	if out.Usage != nil {
		resp.Usage = Usage{InputTokens: int(aws.ToInt32(out.Usage.InputTokens)), OutputTokens: int(aws.ToInt32(out.Usage.OutputTokens))}
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return resp, errors.New("the model answered without a message")
	}
	var text []string
	for _, c := range msg.Value.Content {
		switch c := c.(type) {
		case *types.ContentBlockMemberText:
			text = append(text, c.Value)
		case *types.ContentBlockMemberToolUse:
			resp.ToolUses = append(resp.ToolUses, ToolUse{ID: aws.ToString(c.Value.ToolUseId), Name: aws.ToString(c.Value.Name), Input: toolInput(c.Value.Input)})
		}
	}
	resp.Text = strings.Join(text, "\n")
	return resp, nil
}

// toolInput is a tool use's input as JSON, {} when absent or unreadable.
func toolInput(d document.Interface) json.RawMessage {
	input := json.RawMessage("{}")
	if d != nil {
		var v any
		if err := d.UnmarshalSmithyDocument(&v); err == nil {
			if raw, err := json.Marshal(jsonValue(v, 0)); err == nil {
				input = raw
			}
		}
	}
	return input
}

// classifyBedrock tells the operator's mistakes (unknown model, no access)
// from the model service's failures: only the former fail a scan.
func classifyBedrock(model string, err error) error {
	var denied *types.AccessDeniedException
	var notFound *types.ResourceNotFoundException
	var invalid *types.ValidationException
	switch {
	case errors.As(err, &denied):
		return &planner.ConfigError{Reason: "The scan's model is not available: access to " + model + " is denied"}
	case errors.As(err, &notFound):
		return &planner.ConfigError{Reason: "The scan's model is not available: " + model + " was not found"}
	case errors.As(err, &invalid) && strings.Contains(strings.ToLower(invalid.ErrorMessage()), "model identifier"):
		return &planner.ConfigError{Reason: "The scan's model is not available: " + model + " is not a valid model identifier"}
	}
	return fmt.Errorf("model %s: %w", model, err)
}

// jsonValue turns a decoded Smithy document into plain JSON values: its
// numbers (document.Number, a string type) become JSON numbers again, so a
// port stays 443 and not "443". Depth is bounded (model output is untrusted).
func jsonValue(v any, depth int) any {
	if depth > 32 {
		return nil
	}
	switch v := v.(type) {
	case smithydocument.Number:
		return json.Number(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonValue(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValue(x, depth+1)
		}
		return out
	}
	return v
}
