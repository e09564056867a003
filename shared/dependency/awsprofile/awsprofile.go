// Package awsprofile gives processes that run outside Lambda (the local
// stack, agent-eval) the SDK's whole configuration chain: importing it sets
// dependency.LoadShared, so clients built for AWS read shared config files,
// profiles, SSO and the AWS_ENDPOINT_URL_<SERVICE> variables as the AWS CLI
// does. Lambda functions do not import it: their credentials are in the
// environment, and the chain's packages would only slow their cold start.
package awsprofile

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"secscan/shared/dependency"
)

func init() { dependency.LoadShared = load }

// load is the SDK's default configuration with base's HTTP client and retryer.
func load(ctx context.Context, base aws.Config) (aws.Config, error) {
	return awsconfig.LoadDefaultConfig(ctx, awsconfig.WithHTTPClient(base.HTTPClient), awsconfig.WithRetryer(base.Retryer))
}
