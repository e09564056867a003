// Package store keeps the service's records in one DynamoDB table.
//
// The table has a string partition key `pk`, a string sort key `sk` and a TTL
// attribute `ttl`. Items, and the access pattern each serves:
//
//	pk                      sk                 what / served access pattern
//	USER#<usr id>           PROFILE            user record; also carries the user's rate-limit
//	                                           logs, so authentication reads the user and
//	                                           counts the request in one UpdateItem
//	USER#<usr id>           TARGET#<tgt id>    a target; list a user's targets newest first
//	                                           (Query, ScanIndexForward=false), get one by id
//	USER#<usr id>           DOMAIN#<domain>    claim: one target per domain per user (409 with id)
//	USER#<usr id>           TOKEN#<tok id>     token metadata for listing and revoking
//	USER#<usr id>           SCHEDULE#<sch id>  a schedule; list a user's schedules newest
//	                                           first, count them for the plan's limit
//	SCHEDULE#<sch id>       SCHEDULE           schedule id -> user id, for the scheduled-scan
//	                                           function, whose input is the schedule id alone
//	WEBHOOK_SECRET#<usr id> WEBHOOK_SECRET     the account's webhook signing secret, in a
//	                                           partition of its own so IAM can keep the scan
//	                                           functions from it (webhooksecret.go)
//	CREDITS#<usr id>        MONTH#<YYYY-MM>    the month's credit counters (credits.go)
//	TOKEN#<sha256 hex>      TOKEN              authentication by API token (GetItem, consistent)
//	IDENTITY#<iss> <sub>    IDENTITY           authentication by JWT: (iss, sub) -> user
//	EMAIL#<email>           EMAIL              email -> user, for admin-created users and uniqueness
//	AUTHFAIL#<ip>           AUTHFAIL           failed authentications per source IP (TTL)
//	PROMOTION#<email>       PROMOTION          AdminEmails made this email's user an admin; never
//	                                           deleted, so it promotes at most once per stack
//	TARGET#<tgt id>         ISSUE#<key>, ASSET#…, LATEST#<type>
//	                                           a target's issue ledger, asset inventory and
//	                                           last completed scans (ledger.go): one Query reads
//	                                           them all at completion; the API reaches a target id
//	                                           only through its owner's USER#/TARGET# record
//
// Every request-path operation is keyed (GetItem, Query on one partition,
// conditional writes); nothing scans the table on a request path (the local
// stack's schedule ticker, schedules.go, is the one Scan). Every user-owned record lives
// in the user's partition (or one keyed by the user's id), so reading another
// user's id simply finds nothing. Scan records and their children: scans.go
// (the record and its layout), scancreate.go, scanlist.go, scandetail.go,
// scanstate.go (transitions, cancellation) and scansteps.go (the agent's
// charges, steps and findings). The store's typed errors: errors.go.
//
// The partition is what IAM's dynamodb:LeadingKeys sees, so template.yaml's
// policies follow these shapes: the scan functions get SCAN#*, read and
// attribute-limited update access to USER#*, the agent UpdateItem on
// CREDITS#*, the webhook function WEBHOOK_SECRET#*.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DB is the part of the DynamoDB client the store uses.
type DB interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Store reads and writes the service's records.
type Store struct {
	db    DB
	table string
}

// New returns a Store on table.
func New(db DB, table string) *Store { return &Store{db: db, table: table} }

// DB returns the client, for packages that share the table (rate limits).
func (s *Store) DB() DB { return s.db }

// Table returns the table name.
func (s *Store) Table() string { return s.table }

// Key builders. Kept in one place so the layout above stays true.
func userPK(userID string) string       { return "USER#" + userID }
func tokenHashPK(hash string) string    { return "TOKEN#" + hash }
func identityPK(iss, sub string) string { return "IDENTITY#" + iss + " " + sub }
func emailPK(email string) string       { return "EMAIL#" + email }
func authFailPK(ip string) string       { return "AUTHFAIL#" + ip }
func promotionPK(email string) string   { return "PROMOTION#" + email }
func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: sk},
	}
}

// UserKey is the key of a user's profile item (where rate-limit logs live).
func UserKey(userID string) map[string]types.AttributeValue { return key(userPK(userID), "PROFILE") }

// AuthFailureKey is the key of the failed-authentication log of a source IP.
func AuthFailureKey(ip string) map[string]types.AttributeValue {
	return key(authFailPK(ip), "AUTHFAIL")
}

func (s *Store) get(ctx context.Context, k map[string]types.AttributeValue, out any) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return dbError("get item", err)
	}
	if res.Item == nil {
		return ErrNotFound
	}
	if err := attributevalue.UnmarshalMap(res.Item, out); err != nil {
		return fmt.Errorf("decode item: %w", err)
	}
	return nil
}

// getRecord is get of the record of kind (a noun, "scan") named id: a
// missing one is a *NotFoundError naming it.
func (s *Store) getRecord(ctx context.Context, k map[string]types.AttributeValue, out any, kind, id string) error {
	err := s.get(ctx, k, out)
	if errors.Is(err, ErrNotFound) {
		return notFound(kind, id)
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", kind, id, err)
	}
	return nil
}

func marshal(v any) map[string]types.AttributeValue {
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		// Only our own item structs are marshalled; failing here is a programming error.
		panic(fmt.Sprintf("store: marshal %T: %v", v, err))
	}
	return item
}

func putNew(table string, item any) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName:           &table,
		Item:                marshal(item),
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}
}

// transactionConflict reports whether a transaction was cancelled because the
// condition of item i failed, returning that item's old attributes when sent.
func transactionConflict(err error, i int) (map[string]types.AttributeValue, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i < 0 || i >= len(tce.CancellationReasons) {
		return nil, false
	}
	r := tce.CancellationReasons[i]
	if aws.ToString(r.Code) != "ConditionalCheckFailed" {
		return nil, false
	}
	return r.Item, true
}

// IsConditionFailed reports whether err is a failed condition of a single write.
func IsConditionFailed(err error) (*types.ConditionalCheckFailedException, bool) {
	var ccf *types.ConditionalCheckFailedException
	ok := errors.As(err, &ccf)
	return ccf, ok
}

// ttlAfter is the epoch-seconds TTL value for t.
func ttlAfter(t time.Time) int64 { return t.Unix() }
