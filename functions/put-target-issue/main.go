// Command put-target-issue is PutTargetIssueFunction in template.yaml: PUT /api/targets/{id}/issues/{key}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.PutTargetIssue())
}
