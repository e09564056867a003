// Command scan-agent is ScanAgentFunction in template.yaml: the scan agent's
// start, plan, complete, cancel and fail actions (the state machine's Task
// states) and the EventBridge rule's "execution ended" events. Planning
// checks the planned tool's input, so it links the tool registry; it runs
// no tool and sends no webhook.
package main

import (
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/agent"
	"secscan/shared/lambdaenv"
	"secscan/shared/planner"
	"secscan/shared/scanners"
)

func main() {
	env := lambdaenv.Load()
	registry := scanners.Registry()
	a := &agent.Agent{Store: env.Store(), Tools: registry, Planner: planner.Playbook{Tools: registry},
		Now: time.Now, Logger: env.Logger}
	lambda.Start(a.Handle)
}
