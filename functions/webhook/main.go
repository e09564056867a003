// Command webhook is WebhookFunction in template.yaml: the scan agent's
// deliver_webhook action, called from the state machine's final state.
package main

import (
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"secscan/shared/agent"
	"secscan/shared/lambdaenv"
	"secscan/shared/webhook"
)

func main() {
	env := lambdaenv.Load()
	st := env.Store()
	res := env.Resolver()
	a := &agent.Agent{Store: st, Now: time.Now, Logger: env.Logger,
		Webhooks: &webhook.Deliverer{Store: st, Dialer: env.Dialer(res), AllowInsecure: env.Config.AllowInsecureCallbacks,
			Now: time.Now, Logger: env.Logger}}
	lambda.Start(a.Handle)
}
