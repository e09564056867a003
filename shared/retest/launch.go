package retest

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// runTimeout bounds a run launched in-process: every call is bounded, a
// retest makes at most MaxRetestLocations of them, concurrency at a time.
const runTimeout = 3 * time.Minute

// InProcess launches retests in a goroutine of this process, through the
// same Runner the deployed function runs: the local stack's launcher.
type InProcess struct {
	Runner *Runner
	// Function, when set, is the run's invoked function (as the Lambda
	// runtime tells a handler), so the local stack attributes the run's
	// calls to the function that makes them when deployed.
	Function string
}

// LaunchRetest starts the run and returns at once (api.RetestLauncher).
func (l InProcess) LaunchRetest(_ context.Context, req Request) error {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		if l.Function != "" {
			ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{InvokedFunctionArn: l.Function})
		}
		if err := l.Runner.Handle(ctx, req); err != nil {
			l.Runner.Logger.ErrorContext(ctx, "retest run", "retest_id", req.RetestID, "error", err.Error())
		}
	}()
	return nil
}
