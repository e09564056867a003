// Command dashboard is DashboardFunction in template.yaml: GET / and
// GET /assets/{name}, the browser side of the service on the API's origin.
package main

import (
	"os"

	"secscan/shared/dashboard"
	"secscan/shared/lambdaenv"
	"secscan/shared/lambdahttp"
)

func main() {
	d := lambdaenv.Must(dashboard.New(dashboard.ConfigFromEnv(os.Getenv)))
	lambdahttp.Start(d.Handler())
}
