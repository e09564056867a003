// Command rotate-webhook-secret is RotateWebhookSecretFunction in template.yaml: POST /api/webhook-secret/rotate.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.RotateWebhookSecret())
}
