package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/store"
)

// A secret written at its legacy key (USER#<usr> / WEBHOOK_SECRET, where the
// scan functions' IAM reaches) is still the one used, and the account
// endpoints' MigrateWebhookSecret moves it to its own partition, unchanged.
func TestLegacyWebhookSecretMoves(t *testing.T) {
	t.Parallel()
	st, ctx := newStore(t), context.Background()
	u := newUser(t, st, "legacy-secret@example.com")
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	legacy := map[string]types.AttributeValue{"pk": s("USER#" + u.ID), "sk": s("WEBHOOK_SECRET")}
	item := map[string]types.AttributeValue{"pk": legacy["pk"], "sk": legacy["sk"], "secret": s("whsec_legacy"),
		"created_at": s(time.Now().UTC().Format(time.RFC3339Nano))}
	table := st.Table()
	if _, err := st.DB().PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_new", CreatedAt: time.Now()})
	if err != nil || got.Secret != "whsec_legacy" {
		t.Fatalf("before the move: %q %v", got.Secret, err)
	}
	for range 2 { // a second move finds nothing to do
		if err := st.MigrateWebhookSecret(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
	}
	res, err := st.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: legacy, ConsistentRead: new(true)})
	if err != nil || res.Item != nil {
		t.Fatalf("the legacy item is still there: %v %v", res.Item, err)
	}
	moved := map[string]types.AttributeValue{"pk": s("WEBHOOK_SECRET#" + u.ID), "sk": s("WEBHOOK_SECRET")}
	if res, err := st.DB().GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: moved, ConsistentRead: new(true)}); err != nil || res.Item == nil {
		t.Fatalf("not at the new key: %v", err)
	}
	if got, err := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_new", CreatedAt: time.Now()}); err != nil || got.Secret != "whsec_legacy" {
		t.Fatalf("after the move: %q %v", got.Secret, err)
	}
	next, err := st.RotateWebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "whsec_rotated", CreatedAt: time.Now()})
	if err != nil || next.Version != 1 {
		t.Fatalf("rotate: %+v %v", next, err)
	}
	if got, _ := st.WebhookSecret(ctx, u.ID, store.WebhookSecret{Secret: "x"}); got.Secret != "whsec_rotated" {
		t.Fatalf("after rotation: %q", got.Secret)
	}
}
