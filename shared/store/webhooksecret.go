package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// WebhookSecret is an account's webhook signing secret. It is stored as is
// (signing needs the value); the table is encrypted at rest.
type WebhookSecret struct {
	Secret    string    `dynamodbav:"secret"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	// Version counts rotations; a rotation is conditional on it.
	Version int `dynamodbav:"version,omitempty"`
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

// RotateWebhookSecret replaces the user's secret; the old one stops working
// at once. The write is conditional on the version it read, so of two
// concurrent rotations exactly one wins and the other gets ErrConflict
// (never two answers of which one secret is already dead).
func (s *Store) RotateWebhookSecret(ctx context.Context, userID string, next WebhookSecret) (WebhookSecret, error) {
	k := key(userPK(userID), "WEBHOOK_SECRET")
	var cur webhookSecretItem
	cond, values := "attribute_not_exists(pk)", map[string]types.AttributeValue{}
	switch err := s.get(ctx, k, &cur); {
	case err == nil && cur.Version == 0: // written before versions existed
		cond = "attribute_exists(pk) AND attribute_not_exists(version)"
	case err == nil:
		cond = "version = :v"
		values[":v"] = &types.AttributeValueMemberN{Value: strconv.Itoa(cur.Version)}
	case !IsNotFound(err):
		return WebhookSecret{}, fmt.Errorf("rotate webhook secret: %w", err)
	}
	next.Version = cur.Version + 1
	in := &dynamodb.PutItemInput{
		TableName:           &s.table,
		Item:                marshal(webhookSecretItem{PK: userPK(userID), SK: "WEBHOOK_SECRET", WebhookSecret: next}),
		ConditionExpression: &cond,
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	_, err := s.db.PutItem(ctx, in)
	if _, ok := IsConditionFailed(err); ok {
		return WebhookSecret{}, ErrConflict
	}
	if err != nil {
		return WebhookSecret{}, dbError("rotate webhook secret", err)
	}
	return next, nil
}
