// Command me is MeFunction in template.yaml: GET /api/auth/me.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.Me())
}
