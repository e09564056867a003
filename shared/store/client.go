package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"secscan/shared/dependency"
)

// NewClient returns a DynamoDB client for endpoint (DynamoDB Local) or, when
// empty, AWS. Every operation is bounded by dependency.Default and fails with
// a 503 naming the database when DynamoDB does not answer in time.
func NewClient(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := dependency.Config(ctx, endpoint, dependency.Default)
	if err != nil {
		return nil, err
	}
	bound := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, dependency.Bound(dependency.Database, dependency.Default))
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			// DynamoDB Local's x-amz-crc32 does not always match its body.
			o.DisableValidateResponseChecksum = true
		}
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){bound}, optFns...)...), nil
}
