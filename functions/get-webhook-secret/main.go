// Command get-webhook-secret is the Lambda of the GetWebhookSecretFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("GetWebhookSecretFunction") }
