// Command webhook is the Lambda of WebhookFunction in template.yaml: the scan
// agent's deliver_webhook action, called from the state machine's final state.
package main

import "secscan/shared/app"

func main() { app.ServeAgent() }
