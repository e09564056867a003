// Listing a user's scans: a page, newest first, optionally by status or
// target (GET /api/scans).

package store

import (
	"cmp"
	"context"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// ScanFilter narrows a scan list; zero values do not filter.
type ScanFilter struct {
	Status scans.Status
	Target string // the domain
}

// maxFilterQueries bounds the queries one filtered page may cost; a sparse
// filter returns a short page with a cursor rather than reading on and on.
const maxFilterQueries = 8

// ListScans returns a page of the user's scans, newest first, matching f.
func (s *Store) ListScans(ctx context.Context, userID string, page Page, f ScanFilter) ([]scans.Scan, string, error) {
	pk := userPK(userID)
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: scanPrefix},
		},
		ScanIndexForward: aws.Bool(false),
	}
	var filters []string
	if f.Status != "" {
		filters = append(filters, "#status = :status")
		in.ExpressionAttributeValues[":status"] = &types.AttributeValueMemberS{Value: string(f.Status)}
	}
	if f.Target != "" {
		filters = append(filters, "#target = :target")
		in.ExpressionAttributeValues[":target"] = &types.AttributeValueMemberS{Value: f.Target}
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
		in.ExpressionAttributeNames = map[string]string{}
		if f.Status != "" {
			in.ExpressionAttributeNames["#status"] = "status"
		}
		if f.Target != "" {
			in.ExpressionAttributeNames["#target"] = "target"
		}
	}
	if page.Cursor != "" {
		sk, err := decodeCursor(page.Cursor, scanPrefix)
		if err != nil {
			return nil, "", err
		}
		in.ExclusiveStartKey = key(pk, sk)
	}
	var items []map[string]types.AttributeValue
	for q := 0; ; q++ {
		// Ask for one more than needed so a full page knows a next one exists.
		in.Limit = aws.Int32(int32(page.Limit + 1 - len(items)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, "", dbError("list scans", err)
		}
		items = append(items, res.Items...)
		if len(items) > page.Limit {
			items = items[:page.Limit]
			next := encodeCursor(items[len(items)-1]["sk"].(*types.AttributeValueMemberS).Value)
			return s.decodeScans(ctx, items, next)
		}
		if res.LastEvaluatedKey == nil {
			return s.decodeScans(ctx, items, "")
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
		if q+1 == maxFilterQueries {
			next := encodeCursor(res.LastEvaluatedKey["sk"].(*types.AttributeValueMemberS).Value)
			return s.decodeScans(ctx, items, next)
		}
	}
}

// decodeScans decodes a page of scan items. A scan recorded before issues
// existed has findings but no issues_count: it is counted from its findings
// and stored, once, so the next list reads it as any other.
func (s *Store) decodeScans(ctx context.Context, items []map[string]types.AttributeValue, next string) ([]scans.Scan, string, error) {
	out := make([]scans.Scan, 0, len(items))
	var uncounted []int
	for _, item := range items {
		sc, err := decodeScan(item)
		if err != nil {
			return nil, "", err
		}
		if _, ok := item["issues_count"]; !ok && sc.FindingsCount > 0 {
			uncounted = append(uncounted, len(out))
		}
		out = append(out, sc)
	}
	if err := s.countLegacyIssues(ctx, out, uncounted); err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// countLegacyIssues sets IssuesCount of list[i] for each i in which from
// the scan's findings, and stores it unless a step stored one meanwhile.
func (s *Store) countLegacyIssues(ctx context.Context, list []scans.Scan, which []int) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, maxParallelWrites)
	)
	for _, i := range which {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			sc := &list[i]
			fs, err := s.Findings(ctx, sc.ID)
			if err == nil {
				sc.IssuesCount = scans.CountIssues(fs)
				_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName:                 &s.table,
					Key:                       scanKey(sc.UserID, sc.ID),
					UpdateExpression:          aws.String("SET issues_count = :issues"),
					ConditionExpression:       aws.String("attribute_exists(pk) AND attribute_not_exists(issues_count)"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":issues": number(int64(sc.IssuesCount))},
				})
				if _, ok := IsConditionFailed(err); ok {
					err = nil // a step counted them meanwhile
				} else if err != nil {
					err = dbError("store issues count", err)
				}
			}
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}
