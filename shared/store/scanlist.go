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

// ListScans returns a page of the user's scans, newest first, matching f.
func (s *Store) ListScans(ctx context.Context, userID string, page Page, f ScanFilter) ([]scans.Scan, string, error) {
	in, err := s.pageQuery(userPK(userID), scanPrefix, page)
	if err != nil {
		return nil, "", err
	}
	f.apply(in)
	items, next, err := s.readPage(ctx, in, page.Limit)
	if err != nil {
		return nil, "", dbError("list scans", err)
	}
	return s.decodeScans(ctx, items, next)
}

// apply adds the filter's conditions to a query of scan items.
func (f ScanFilter) apply(in *dynamodb.QueryInput) {
	var filters []string
	names := map[string]string{}
	for _, c := range []struct{ attr, value string }{{"status", string(f.Status)}, {"target", f.Target}} {
		if c.value == "" {
			continue
		}
		filters = append(filters, "#"+c.attr+" = :"+c.attr)
		names["#"+c.attr] = c.attr
		in.ExpressionAttributeValues[":"+c.attr] = &types.AttributeValueMemberS{Value: c.value}
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
		in.ExpressionAttributeNames = names
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
