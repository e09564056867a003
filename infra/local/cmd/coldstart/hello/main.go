// Command hello is the smallest Go Lambda: the baseline coldstart compares
// every function's start-up with.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, map[string]any) (string, error) { return "hello", nil })
}
