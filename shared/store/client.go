package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient returns a DynamoDB client for endpoint (DynamoDB Local) or, when empty, AWS.
func NewClient(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	var loadOpts []func(*awsconfig.LoadOptions) error
	if endpoint != "" {
		// DynamoDB Local accepts any credentials; fixed ones keep a developer's
		// real AWS profile out of local runs entirely.
		loadOpts = append(loadOpts,
			awsconfig.WithRegion("us-east-1"),
			awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	local := func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			// DynamoDB Local's x-amz-crc32 does not always match its body.
			o.DisableValidateResponseChecksum = true
		}
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){local}, optFns...)...), nil
}
