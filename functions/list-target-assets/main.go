// Command list-target-assets is ListTargetAssetsFunction in template.yaml: GET /api/targets/{id}/assets.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.ListTargetAssets())
}
