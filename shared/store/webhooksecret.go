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

// The secret has a partition of its own (WEBHOOK_SECRET#<usr id>), not a
// sort key in the user's: IAM's dynamodb:LeadingKeys sees partitions only,
// so this is what lets the template grant the scan functions the user's
// partition without the secret. Secrets written before lived at
// USER#<usr id> / WEBHOOK_SECRET: they are still read (legacyWebhookSecretKey)
// and moved by MigrateWebhookSecret, which the account endpoints call.
func webhookSecretKey(userID string) map[string]types.AttributeValue {
	return key(webhookSecretPK(userID), "WEBHOOK_SECRET")
}

func webhookSecretPK(userID string) string { return "WEBHOOK_SECRET#" + userID }

func legacyWebhookSecretKey(userID string) map[string]types.AttributeValue {
	return key(userPK(userID), "WEBHOOK_SECRET")
}

type webhookSecretItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	WebhookSecret
}

// WebhookSecret returns the user's secret, storing candidate first when the
// user has none yet (created on first use; concurrent first uses agree). A
// secret still at its legacy key is read there and left in place.
func (s *Store) WebhookSecret(ctx context.Context, userID string, candidate WebhookSecret) (WebhookSecret, error) {
	var it webhookSecretItem
	err := s.get(ctx, webhookSecretKey(userID), &it)
	if err == nil {
		return it.WebhookSecret, nil
	}
	if !IsNotFound(err) {
		return WebhookSecret{}, fmt.Errorf("get webhook secret: %w", err)
	}
	switch err := s.get(ctx, legacyWebhookSecretKey(userID), &it); {
	case err == nil:
		return it.WebhookSecret, nil
	case !IsNotFound(err):
		return WebhookSecret{}, fmt.Errorf("get webhook secret: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           &s.table,
		Item:                marshal(webhookSecretItem{PK: webhookSecretPK(userID), SK: "WEBHOOK_SECRET", WebhookSecret: candidate}),
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if _, ok := IsConditionFailed(err); ok {
		if err := s.get(ctx, webhookSecretKey(userID), &it); err != nil {
			return WebhookSecret{}, fmt.Errorf("get webhook secret: %w", err)
		}
		return it.WebhookSecret, nil
	}
	if err != nil {
		return WebhookSecret{}, dbError("create webhook secret", err)
	}
	return candidate, nil
}

// MigrateWebhookSecret moves a secret from its legacy key (in the user's
// partition) to its own partition, in one transaction; nothing when there
// is none at the legacy key. When both exist (a concurrent move), the
// legacy copy is dropped.
func (s *Store) MigrateWebhookSecret(ctx context.Context, userID string) error {
	var old webhookSecretItem
	switch err := s.get(ctx, legacyWebhookSecretKey(userID), &old); {
	case IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("get legacy webhook secret: %w", err)
	}
	moved := old
	moved.PK = webhookSecretPK(userID)
	drop := types.TransactWriteItem{Delete: &types.Delete{
		TableName:                 &s.table,
		Key:                       legacyWebhookSecretKey(userID),
		ConditionExpression:       aws.String("secret = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": str(old.Secret)},
	}}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{putNew(s.table, moved), drop}})
	if _, ok := transactionConflict(err, 0); ok {
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{drop}})
	}
	if _, ok := transactionConflict(err, 0); ok {
		return nil // moved meanwhile
	}
	return dbError("migrate webhook secret", err)
}

// RotateWebhookSecret replaces the user's secret; the old one stops working
// at once. The write is conditional on the version it read, so of two
// concurrent rotations exactly one wins and the other gets ErrConflict
// (never two answers of which one secret is already dead).
func (s *Store) RotateWebhookSecret(ctx context.Context, userID string, next WebhookSecret) (WebhookSecret, error) {
	if err := s.MigrateWebhookSecret(ctx, userID); err != nil {
		return WebhookSecret{}, err
	}
	k := webhookSecretKey(userID)
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
		Item:                marshal(webhookSecretItem{PK: webhookSecretPK(userID), SK: "WEBHOOK_SECRET", WebhookSecret: next}),
		ConditionExpression: &cond,
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	_, err := s.db.PutItem(ctx, in)
	if _, ok := IsConditionFailed(err); ok {
		return WebhookSecret{}, &ConflictError{Kind: "webhook secret", ID: userID,
			Detail: "The webhook secret was rotated by a concurrent request; read it with GET /api/webhook-secret"}
	}
	if err != nil {
		return WebhookSecret{}, dbError("rotate webhook secret", err)
	}
	return next, nil
}
