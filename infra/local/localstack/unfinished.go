package localstack

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
	"secscan/shared/store"
)

// maxUnfinishedPages bounds the table scan of EndUnfinishedScans.
const maxUnfinishedPages = 1000

// UnfinishedReason is the error of a scan the previous local stack left
// queued or running.
const UnfinishedReason = "The local stack stopped while this scan ran (its scan runner keeps executions in memory): start the scan again."

// EndUnfinishedScans fails the scans a previous local stack left queued or
// running, releasing their reserved credits as any end does, and says how
// many. The local state machine runner keeps executions in memory, so
// nothing would ever drive them again. It reads the table with a Scan,
// which only the local stack does: a deployed stack never needs this (Step
// Functions outlives any Lambda).
func EndUnfinishedScans(ctx context.Context, db *dynamodb.Client, table string, st *store.Store, now time.Time) (int, error) {
	in := &dynamodb.ScanInput{
		TableName:                &table,
		FilterExpression:         aws.String("begins_with(pk, :user) AND begins_with(sk, :scan) AND #status IN (:queued, :running)"),
		ProjectionExpression:     aws.String("user_id, id"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":user":    &types.AttributeValueMemberS{Value: "USER#"},
			":scan":    &types.AttributeValueMemberS{Value: "SCAN#"},
			":queued":  &types.AttributeValueMemberS{Value: string(scans.Queued)},
			":running": &types.AttributeValueMemberS{Value: string(scans.Running)},
		},
	}
	ended := 0
	for page := 0; page < maxUnfinishedPages; page++ {
		res, err := db.Scan(ctx, in)
		if err != nil {
			return ended, fmt.Errorf("find unfinished scans: %w", err)
		}
		n, err := endItems(ctx, st, res.Items, now)
		ended += n
		if err != nil {
			return ended, err
		}
		if res.LastEvaluatedKey == nil {
			return ended, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return ended, nil
}

// endItems fails the scans of one page of items (user_id and id each) and
// says how many it ended; one that ended meanwhile is not counted.
func endItems(ctx context.Context, st *store.Store, items []map[string]types.AttributeValue, now time.Time) (int, error) {
	ended := 0
	for _, it := range items {
		user, _ := it["user_id"].(*types.AttributeValueMemberS)
		id, _ := it["id"].(*types.AttributeValueMemberS)
		if user == nil || id == nil {
			continue
		}
		_, err := st.EndScan(ctx, user.Value, id.Value, scans.Failed, UnfinishedReason, nil, now)
		if _, refused := store.IsRefused(err); err != nil && !refused { // refused: it ended meanwhile
			return ended, fmt.Errorf("end unfinished scan %s: %w", id.Value, err)
		}
		if err == nil {
			ended++
		}
	}
	return ended, nil
}
