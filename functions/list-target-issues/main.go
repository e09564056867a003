// Command list-target-issues is ListTargetIssuesFunction in template.yaml: GET /api/targets/{id}/issues.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListTargetIssues())
}
