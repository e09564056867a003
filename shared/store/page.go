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
// It asks for one item more than the page so it knows whether a next page exists.
func (s *Store) queryPage(ctx context.Context, pk, prefix string, page Page, out any) (string, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":     &types.AttributeValueMemberS{Value: pk},
			":prefix": &types.AttributeValueMemberS{Value: prefix},
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(page.Limit + 1)),
	}
	if page.Cursor != "" {
		sk, err := decodeCursor(page.Cursor, prefix)
		if err != nil {
			return "", err
		}
		in.ExclusiveStartKey = key(pk, sk)
	}
	res, err := s.db.Query(ctx, in)
	if err != nil {
		return "", dbError("query", err)
	}
	items := res.Items
	next := ""
	if len(items) > page.Limit {
		items = items[:page.Limit]
		last := items[len(items)-1]["sk"].(*types.AttributeValueMemberS).Value
		next = encodeCursor(last)
	}
	if err := attributevalue.UnmarshalListOfMaps(items, out); err != nil {
		return "", err
	}
	return next, nil
}
