// Command scheduled-scan is ScheduledScanFunction in template.yaml: what the
// stack's EventBridge Scheduler schedules invoke, with input
// {"schedule_id": "sch_…"}. It takes the schedule's due run and starts its
// scan through the code of POST /api/scans (target, hourly limit, monthly
// allowance; the agent re-verifies ownership when the execution starts), or
// records on the schedule why it did not.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/api/apienv/scanenv"
)

func main() {
	a := scanenv.Load()
	lambda.Start(a.ScheduledScan())
}
