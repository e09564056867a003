// Command get-webhook-secret is GetWebhookSecretFunction in template.yaml: GET /api/webhook-secret.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.GetWebhookSecret())
}
