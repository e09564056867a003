package store

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
)

// Page selects a slice of a list: at most Limit items after Cursor.
type Page struct {
	Limit  int
	Cursor string
}

// ErrBadCursor is a cursor this store did not produce: a 422 on the cursor.
var ErrBadCursor error = badCursorError{}

type badCursorError struct{}

func (badCursorError) Error() string { return "invalid cursor" }

// Classify is the 422 naming the cursor parameter.
func (badCursorError) Classify() *apierr.Error {
	return apierr.Field("cursor", "is not a cursor this API returned")
}

// Cursors carry only the sort key of the last item returned. The partition is
// always the caller's own, so a tampered cursor can at worst skip within the
// caller's own list; it can never reach another user's items.
func encodeCursor(sk string) string { return base64.RawURLEncoding.EncodeToString([]byte(sk)) }

func decodeCursor(cursor, prefix string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) > 200 || !strings.HasPrefix(string(raw), prefix) {
		return "", ErrBadCursor
	}
	return string(raw), nil
}

// queryPage reads one page of the items of partition pk whose sort key starts
// with prefix, newest first, into out (a pointer to a slice of item structs).
func (s *Store) queryPage(ctx context.Context, pk, prefix string, page Page, out any) (string, error) {
	in, err := s.pageQuery(pk, prefix, page)
	if err != nil {
		return "", err
	}
	items, next, err := s.readPage(ctx, in, page.Limit)
	if err != nil {
		return "", dbError("query", err)
	}
	if err := attributevalue.UnmarshalListOfMaps(items, out); err != nil {
		return "", err
	}
	return next, nil
}

// pageQuery is the query of a page of partition pk's items whose sort key
// starts with prefix, newest first, after the page's cursor.
func (s *Store) pageQuery(pk, prefix string, page Page) (*dynamodb.QueryInput, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: prefix},
		},
		ScanIndexForward: aws.Bool(false),
	}
	if page.Cursor != "" {
		sk, err := decodeCursor(page.Cursor, prefix)
		if err != nil {
			return nil, err
		}
		in.ExclusiveStartKey = key(pk, sk)
	}
	return in, nil
}

// maxPageQueries bounds the queries one page may cost: a sparse filter (or
// DynamoDB's 1 MB answer limit) returns a short page with a cursor rather
// than reading on and on.
const maxPageQueries = 8

// readPage runs in until it has limit items, or the partition ends, or
// maxPageQueries queries were made; it returns the items and the cursor of
// the next page ("" at the end). It asks for one item more than it needs
// so that a full page knows whether a next one exists.
func (s *Store) readPage(ctx context.Context, in *dynamodb.QueryInput, limit int) ([]map[string]types.AttributeValue, string, error) {
	var items []map[string]types.AttributeValue
	for q := 0; ; q++ {
		in.Limit = aws.Int32(int32(limit + 1 - len(items)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, "", err
		}
		items = append(items, res.Items...)
		switch {
		case len(items) > limit:
			items = items[:limit]
			return items, encodeCursor(items[len(items)-1]["sk"].(*types.AttributeValueMemberS).Value), nil
		case res.LastEvaluatedKey == nil:
			return items, "", nil
		case q+1 == maxPageQueries:
			return items, encodeCursor(res.LastEvaluatedKey["sk"].(*types.AttributeValueMemberS).Value), nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}
