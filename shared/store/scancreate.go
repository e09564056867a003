// Creating a scan: the record, its Idempotency-Key and its reservation in
// the month's allowance, in one transaction (POST /api/scans, a schedule's
// run); giving the key back when the scan could not be started.

package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

type idempotencyItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	ScanID string `dynamodbav:"scan_id"`
	TTL    int64  `dynamodbav:"ttl"`
}

// Idempotency is an Idempotency-Key claim: KeyHash is the SHA-256 (hex) of
// the header value, Until when the claim lapses.
type Idempotency struct {
	KeyHash string
	Until   time.Time
}

// CreateScan stores a new queued scan. With idem, the key is claimed in the
// same transaction; when the user already used the key within its window, the
// original scan is returned with created == false and nothing is written.
// When sc.CreditMonth is set, the same transaction reserves sc.MaxCredits in
// that month's allowance of sc.Plan (credits.go); an *AllowanceError when the
// month cannot hold it.
func (s *Store) CreateScan(ctx context.Context, sc scans.Scan, idem *Idempotency, now time.Time) (scans.Scan, bool, error) {
	items := []types.TransactWriteItem{putNew(s.table, toScanItem(sc))}
	claimAt, reserveAt := -1, -1
	if idem != nil {
		claim := types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table,
			Item: marshal(idempotencyItem{PK: userPK(sc.UserID), SK: "IDEMPOTENCY#" + idem.KeyHash,
				ScanID: sc.ID, TTL: ttlAfter(idem.Until)}),
			// TTL deletion is lazy: an expired claim may still be there.
			ConditionExpression:                 aws.String("attribute_not_exists(pk) OR #ttl <= :now"),
			ExpressionAttributeNames:            map[string]string{"#ttl": "ttl"},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":now": number(now.Unix())},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}
		claimAt = len(items)
		items = append(items, claim)
	}
	allowance, limited := sc.Plan.MonthlyAllowance()
	if sc.CreditMonth != "" {
		reserveAt = len(items)
		items = append(items, s.reserveCredits(sc.UserID, sc.CreditMonth, sc.MaxCredits, allowance, limited))
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	// A replay first: it returns the original scan whatever the allowance.
	if old, ok := transactionConflict(err, claimAt); ok {
		var claim idempotencyItem
		if err := attributevalue.UnmarshalMap(old, &claim); err != nil {
			return scans.Scan{}, false, fmt.Errorf("decode idempotency claim: %w", err)
		}
		orig, err := s.GetScan(ctx, sc.UserID, claim.ScanID)
		return orig, false, err
	}
	if old, ok := transactionConflict(err, reserveAt); ok {
		return scans.Scan{}, false, allowanceError(old, sc.CreditMonth, allowance)
	}
	if err != nil {
		return scans.Scan{}, false, dbError("create scan", err)
	}
	return sc, true, nil
}

// ReleaseIdempotency drops the user's claim of a key when it still names
// scanID, so a request whose scan could not be started can be retried with
// the same key.
func (s *Store) ReleaseIdempotency(ctx context.Context, userID, keyHash, scanID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       key(userPK(userID), "IDEMPOTENCY#"+keyHash),
		ConditionExpression:       aws.String("scan_id = :id"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(scanID)},
	})
	if _, ok := IsConditionFailed(err); ok {
		return nil
	}
	return dbError("release idempotency key", err)
}
