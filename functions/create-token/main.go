// Command create-token is CreateTokenFunction in template.yaml: POST /api/tokens.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.CreateToken())
}
