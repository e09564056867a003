// Command list-tokens is ListTokensFunction in template.yaml: GET /api/tokens.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListTokens())
}
