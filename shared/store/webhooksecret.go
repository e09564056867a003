package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// WebhookSecret is an account's webhook signing secret. It is stored as is
// (signing needs the value); the table is encrypted at rest.
type WebhookSecret struct {
	Secret    string    `dynamodbav:"secret"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

type webhookSecretItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	WebhookSecret
}

// WebhookSecret returns the user's secret, storing candidate first when the
// user has none yet (created on first use; concurrent first uses agree).
func (s *Store) WebhookSecret(ctx context.Context, userID string, candidate WebhookSecret) (WebhookSecret, error) {
	var it webhookSecretItem
	err := s.get(ctx, key(userPK(userID), "WEBHOOK_SECRET"), &it)
	if err == nil {
		return it.WebhookSecret, nil
	}
	if !IsNotFound(err) {
		return WebhookSecret{}, fmt.Errorf("get webhook secret: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           &s.table,
		Item:                marshal(webhookSecretItem{PK: userPK(userID), SK: "WEBHOOK_SECRET", WebhookSecret: candidate}),
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if _, ok := IsConditionFailed(err); ok {
		if err := s.get(ctx, key(userPK(userID), "WEBHOOK_SECRET"), &it); err != nil {
			return WebhookSecret{}, fmt.Errorf("get webhook secret: %w", err)
		}
		return it.WebhookSecret, nil
	}
	if err != nil {
		return WebhookSecret{}, dbError("create webhook secret", err)
	}
	return candidate, nil
}

// RotateWebhookSecret replaces the user's secret; the old one stops working at once.
func (s *Store) RotateWebhookSecret(ctx context.Context, userID string, next WebhookSecret) error {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table,
		Item:      marshal(webhookSecretItem{PK: userPK(userID), SK: "WEBHOOK_SECRET", WebhookSecret: next}),
	})
	return dbError("rotate webhook secret", err)
}
