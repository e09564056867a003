// Package toolrun runs one tool call the way a scan step and a retest both
// do: within the tool's own time bound, capped at tools.MaxCallDuration (the
// 30-second rule), with a panicking tool turned into an error rather than a
// lost step.
package toolrun

import (
	"context"
	"encoding/json"
	"fmt"

	"secscan/shared/tools"
)

// Bounded runs tool on input within min(tool.Timeout(),
// tools.MaxCallDuration) and turns a panic into an error.
func Bounded(ctx context.Context, tool tools.Tool, env tools.Env, input json.RawMessage) (res tools.Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, min(tool.Timeout(), tools.MaxCallDuration))
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			res, err = tools.Result{}, fmt.Errorf("tool %s crashed: %v", tool.Name(), r)
		}
	}()
	return tool.Run(ctx, env, input)
}
