// Command delete-token is DeleteTokenFunction in template.yaml: DELETE /api/tokens/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.DeleteToken())
}
