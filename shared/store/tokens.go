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

// Token is an API token's record. The secret itself is never stored: only its
// SHA-256 (Hash), which is the key authentication looks it up by.
type Token struct {
	ID         string     `dynamodbav:"id"`
	UserID     string     `dynamodbav:"user_id"`
	Name       string     `dynamodbav:"name"`
	Prefix     string     `dynamodbav:"token_prefix"`
	Hash       string     `dynamodbav:"token_hash"`
	CreatedAt  time.Time  `dynamodbav:"created_at"`
	ExpiresAt  *time.Time `dynamodbav:"expires_at"`
	LastUsedAt *time.Time `dynamodbav:"last_used_at"`
}

// NewToken is a token to create.
type NewToken = Token

type tokenItem struct {
	PK  string `dynamodbav:"pk"`
	SK  string `dynamodbav:"sk"`
	TTL *int64 `dynamodbav:"ttl,omitempty"`
	Token
}

// expiredTokenGrace keeps expired tokens listed (as expired) for a while
// before TTL removes them, so users see why a client started failing.
const expiredTokenGrace = 30 * 24 * time.Hour

// tokenItems are the two items of a token: the hash item authentication reads
// and the reference in the user's partition that listing and revoking use.
func tokenItems(table string, t Token) []types.TransactWriteItem {
	var ttl *int64
	if t.ExpiresAt != nil {
		v := ttlAfter(t.ExpiresAt.Add(expiredTokenGrace))
		ttl = &v
	}
	return []types.TransactWriteItem{
		putNew(table, tokenItem{PK: tokenHashPK(t.Hash), SK: "TOKEN", TTL: ttl, Token: t}),
		putNew(table, tokenItem{PK: userPK(t.UserID), SK: "TOKEN#" + t.ID, TTL: ttl, Token: t}),
	}
}

// CreateToken stores a new token.
func (s *Store) CreateToken(ctx context.Context, t Token) error {
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tokenItems(s.table, t)})
	if _, ok := transactionConflict(err, 0); ok {
		return ErrConflict
	}
	return dbError("create token", err)
}

// TokenByHash finds a token by the SHA-256 of its value (strongly consistent,
// so a revocation is effective from the very next request).
func (s *Store) TokenByHash(ctx context.Context, hash string) (Token, error) {
	var it tokenItem
	if err := s.get(ctx, key(tokenHashPK(hash), "TOKEN"), &it); err != nil {
		return Token{}, fmt.Errorf("get token: %w", err)
	}
	return it.Token, nil
}

// ListTokens returns a page of the user's tokens, newest first.
func (s *Store) ListTokens(ctx context.Context, userID string, page Page) ([]Token, string, error) {
	var items []tokenItem
	next, err := s.queryPage(ctx, userPK(userID), "TOKEN#", page, &items)
	if err != nil {
		return nil, "", fmt.Errorf("list tokens: %w", err)
	}
	out := make([]Token, len(items))
	for i, it := range items {
		out[i] = it.Token
	}
	return out, next, nil
}

// DeleteToken revokes the user's token id: both items go in one transaction,
// so there is never a reference without a working hash or the reverse.
func (s *Store) DeleteToken(ctx context.Context, userID, tokenID string) error {
	var ref tokenItem
	if err := s.getRecord(ctx, key(userPK(userID), "TOKEN#"+tokenID), &ref, "token", tokenID); err != nil {
		return err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: key(userPK(userID), "TOKEN#"+tokenID),
			ConditionExpression: aws.String("attribute_exists(pk)")}},
		{Delete: &types.Delete{TableName: &s.table, Key: key(tokenHashPK(ref.Hash), "TOKEN")}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return notFound("token", tokenID) // revoked concurrently
	}
	return dbError("delete token", err)
}

// TouchToken records that the token was used at now, unless it was already
// recorded within granularity: last_used_at is kept without a write on every
// request. Both items change together; a lost race is not an error.
func (s *Store) TouchToken(ctx context.Context, t Token, now time.Time, granularity time.Duration) error {
	if t.LastUsedAt != nil && now.Sub(*t.LastUsedAt) < granularity {
		return nil
	}
	at := &types.AttributeValueMemberS{Value: now.UTC().Format(time.RFC3339Nano)}
	// The comparison uses epoch seconds: RFC 3339 strings with trimmed
	// fractions do not sort in time order.
	unix := &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}
	cutoff := &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(-granularity).Unix(), 10)}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(tokenHashPK(t.Hash), "TOKEN"),
			UpdateExpression:          aws.String("SET last_used_at = :at, last_used_unix = :unix"),
			ConditionExpression:       aws.String("attribute_exists(pk) AND (attribute_not_exists(last_used_unix) OR last_used_unix < :cutoff)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":at": at, ":unix": unix, ":cutoff": cutoff},
		}},
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(userPK(t.UserID), "TOKEN#"+t.ID),
			UpdateExpression:          aws.String("SET last_used_at = :at"),
			ConditionExpression:       aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":at": at},
		}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return nil
	}
	if _, ok := transactionConflict(err, 1); ok {
		return nil
	}
	return dbError("touch token", err)
}
