package dynamolocal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/dynamotest"
	"secscan/shared/samtemplate"
	"secscan/shared/store"
)

// templateWith writes a template whose one table has, with index true, a
// global secondary index on gpk, and loads it.
func templateWith(t *testing.T, index bool) *samtemplate.Template {
	t.Helper()
	yaml := `Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: sk, AttributeType: S}
%s      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
        - {AttributeName: sk, KeyType: RANGE}
      TimeToLiveSpecification: {AttributeName: ttl, Enabled: true}
%s`
	attr, gsi := "", ""
	if index {
		attr = "        - {AttributeName: gpk, AttributeType: S}\n"
		gsi = `      GlobalSecondaryIndexes:
        - IndexName: by-gpk
          KeySchema: [{AttributeName: gpk, KeyType: HASH}]
          Projection: {ProjectionType: KEYS_ONLY}
`
	}
	yaml = fmt.Sprintf(yaml, attr, gsi)
	path := filepath.Join(t.TempDir(), "template.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	tpl, err := samtemplate.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// A table kept from an earlier run (make run's .local folder) keeps its items
// and gains the index a newer template.yaml adds; TTL stays on.
func TestCreateTablesUpgradesAKeptTable(t *testing.T) {
	ctx := context.Background()
	db, err := store.NewClient(ctx, dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	name := "upgrade-" + t.Name()
	t.Cleanup(func() { _, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name}) })
	if err := dynamolocal.CreateTables(ctx, db, templateWith(t, false), name); err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "kept"}, "sk": &types.AttributeValueMemberS{Value: "X"},
		"gpk": &types.AttributeValueMemberS{Value: "g"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &name, Item: item}); err != nil {
		t.Fatal(err)
	}
	newer := templateWith(t, true)
	// Twice: the second start finds the index there and changes nothing.
	for range 2 {
		if err := dynamolocal.CreateTables(ctx, db, newer, name); err != nil {
			t.Fatal(err)
		}
	}
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &name})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(desc.Table.GlobalSecondaryIndexes); n != 1 || aws.ToString(desc.Table.GlobalSecondaryIndexes[0].IndexName) != "by-gpk" {
		t.Fatalf("indexes after the upgrade: %+v, want by-gpk", desc.Table.GlobalSecondaryIndexes)
	}
	res, err := db.Query(ctx, &dynamodb.QueryInput{TableName: &name, IndexName: aws.String("by-gpk"),
		KeyConditionExpression: aws.String("gpk = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "g"}}})
	if err != nil {
		t.Fatalf("query through the new index: %v", err)
	}
	if res.Count != 1 {
		t.Fatalf("the kept item through the new index: count %d, want 1", res.Count)
	}
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &name})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d == nil || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("TTL after the upgrade: %+v", d)
	}
}
