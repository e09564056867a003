// Command rotate-webhook-secret is the Lambda of the RotateWebhookSecretFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("RotateWebhookSecretFunction") }
