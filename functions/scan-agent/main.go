// Command scan-agent is ScanAgentFunction in template.yaml: the scan agent's
// start, plan, complete, cancel and fail actions (the state machine's Task
// states) and the EventBridge rule's "execution ended" events. Planning
// checks the planned tool's input, so it links the tool registry; starting
// a scan may re-check the target's ownership challenge (DNS or the guarded
// dialer); it runs no tool and sends no webhook. It is the only function
// that plans, so the only one that builds a model client (when a tier has a
// model configured).
package main

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/agent"
	"secscan/shared/lambdaenv"
	"secscan/shared/modelplanner"
	"secscan/shared/scanners"
	"secscan/shared/verification"
)

func main() {
	env := lambdaenv.Load()
	registry := scanners.Registry()
	res := env.Resolver()
	plan := lambdaenv.Must(modelplanner.FromConfig(context.Background(), env.Config, registry, env.Logger))
	a := &agent.Agent{Store: env.Store(), Tools: registry, Planner: plan,
		Ownership: &verification.Verifier{Resolver: res, Dialer: env.Dialer(res)},
		Now:       time.Now, Logger: env.Logger}
	lambda.Start(a.Handle)
}
