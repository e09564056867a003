package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// RunBounded runs one tool call the way a scan step and a retest both do:
// within the tool's own time bound, capped at MaxCallDuration (the
// 30-second rule), with a panicking tool turned into an error rather than a
// lost step.
func RunBounded(ctx context.Context, tool Tool, env Env, input json.RawMessage) (res Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, min(tool.Timeout(), MaxCallDuration))
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, fmt.Errorf("tool %s crashed: %v", tool.Name(), r)
		}
	}()
	return tool.Run(ctx, env, input)
}
