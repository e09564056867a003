package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
)

// Target is a domain a user registered for scanning.
type Target struct {
	ID                string     `dynamodbav:"id"`
	UserID            string     `dynamodbav:"user_id"`
	Domain            string     `dynamodbav:"target"`
	Method            string     `dynamodbav:"method"`
	VerificationToken string     `dynamodbav:"verification_token"`
	Verified          bool       `dynamodbav:"verified"`
	VerifiedAt        *time.Time `dynamodbav:"verified_at"` // the last successful check
	// VerificationError is why the last re-check before a scan failed (the
	// target became unverified); cleared by the next successful check.
	VerificationError string    `dynamodbav:"verification_error,omitempty"`
	CreatedAt         time.Time `dynamodbav:"created_at"`
}

type targetItem struct {
	PK string `dynamodbav:"pk"`
	SK string `dynamodbav:"sk"`
	Target
}

type domainClaimItem struct {
	PK       string `dynamodbav:"pk"`
	SK       string `dynamodbav:"sk"`
	TargetID string `dynamodbav:"target_id"`
}

// DuplicateTargetError is the conflict of registering Domain twice: a 409
// naming the target that holds it.
type DuplicateTargetError struct{ Domain, ExistingID string }

func (e *DuplicateTargetError) Error() string { return "domain already registered as " + e.ExistingID }
func (e *DuplicateTargetError) Unwrap() error { return ErrConflict }

// Classify is the 409 naming the existing target.
func (e *DuplicateTargetError) Classify() *apierr.Error {
	return apierr.New(apierr.Conflict, "Target %s is already registered as %s", e.Domain, e.ExistingID)
}

// CreateTarget stores t, claiming its domain for the user in the same
// transaction; a second registration of the domain is a *DuplicateTargetError.
func (s *Store) CreateTarget(ctx context.Context, t Target) error {
	claim := putNew(s.table, domainClaimItem{PK: userPK(t.UserID), SK: "DOMAIN#" + t.Domain, TargetID: t.ID})
	claim.Put.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		claim,
		putNew(s.table, targetItem{PK: userPK(t.UserID), SK: "TARGET#" + t.ID, Target: t}),
	}})
	if old, ok := transactionConflict(err, 0); ok {
		var existing domainClaimItem
		_ = attributevalue.UnmarshalMap(old, &existing)
		return &DuplicateTargetError{Domain: t.Domain, ExistingID: existing.TargetID}
	}
	return dbError("create target", err)
}

// GetTarget returns the user's target id; another user's id is ErrNotFound.
func (s *Store) GetTarget(ctx context.Context, userID, id string) (Target, error) {
	var it targetItem
	if err := s.getRecord(ctx, key(userPK(userID), "TARGET#"+id), &it, "target", id); err != nil {
		return Target{}, err
	}
	return it.Target, nil
}

// ListTargets returns a page of the user's targets, newest first.
func (s *Store) ListTargets(ctx context.Context, userID string, page Page) ([]Target, string, error) {
	var items []targetItem
	next, err := s.queryPage(ctx, userPK(userID), "TARGET#", page, &items)
	if err != nil {
		return nil, "", fmt.Errorf("list targets: %w", err)
	}
	out := make([]Target, len(items))
	for i, it := range items {
		out[i] = it.Target
	}
	return out, next, nil
}

// TargetByDomain returns the user's target for domain.
func (s *Store) TargetByDomain(ctx context.Context, userID, domain string) (Target, error) {
	var claim domainClaimItem
	if err := s.getRecord(ctx, key(userPK(userID), "DOMAIN#"+domain), &claim, "target", domain); err != nil {
		return Target{}, err
	}
	return s.GetTarget(ctx, userID, claim.TargetID)
}

// MarkTargetVerified records a successful verification (once: a target that
// is verified already keeps its first verified_at) and returns the target.
func (s *Store) MarkTargetVerified(ctx context.Context, userID, id string, at time.Time) (Target, error) {
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 key(userPK(userID), "TARGET#"+id),
		UpdateExpression:    aws.String("SET verified = :true, verified_at = :at REMOVE verification_error"),
		ConditionExpression: aws.String("attribute_exists(pk) AND verified = :false"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":true":  &types.AttributeValueMemberBOOL{Value: true},
			":false": &types.AttributeValueMemberBOOL{Value: false},
			":at":    &types.AttributeValueMemberS{Value: at.UTC().Format(time.RFC3339Nano)},
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, ok := IsConditionFailed(err); ok {
		// Deleted meanwhile, or verified by a concurrent request: read what is there.
		return s.GetTarget(ctx, userID, id)
	}
	if err != nil {
		return Target{}, dbError("verify target", err)
	}
	var it targetItem
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return Target{}, fmt.Errorf("decode target: %w", err)
	}
	return it.Target, nil
}

// RecordOwnershipCheck writes the result of a re-check of a target's
// challenge (before a scan): on success verified_at moves to at; on failure
// (reason != "") the target becomes unverified and keeps the reason.
// ErrNotFound when the target is gone.
func (s *Store) RecordOwnershipCheck(ctx context.Context, userID, id string, at time.Time, reason string) error {
	update := "SET verified = :true, verified_at = :at REMOVE verification_error"
	values := map[string]types.AttributeValue{
		":true": &types.AttributeValueMemberBOOL{Value: true},
		":at":   &types.AttributeValueMemberS{Value: at.UTC().Format(time.RFC3339Nano)},
	}
	if reason != "" {
		update = "SET verified = :false, verification_error = :reason"
		values = map[string]types.AttributeValue{
			":false":  &types.AttributeValueMemberBOOL{Value: false},
			":reason": &types.AttributeValueMemberS{Value: reason},
		}
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(userPK(userID), "TARGET#"+id),
		UpdateExpression:          &update,
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: values,
	})
	if _, ok := IsConditionFailed(err); ok {
		return notFound("target", id)
	}
	return dbError("record ownership check", err)
}

// DeleteTarget removes the user's target and its domain claim at once. Scans
// live in their own records and are kept.
func (s *Store) DeleteTarget(ctx context.Context, userID, id string) error {
	t, err := s.GetTarget(ctx, userID, id)
	if err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: &s.table, Key: key(userPK(userID), "TARGET#"+id),
			ConditionExpression: aws.String("attribute_exists(pk)")}},
		{Delete: &types.Delete{TableName: &s.table, Key: key(userPK(userID), "DOMAIN#"+t.Domain)}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return notFound("target", id)
	}
	return dbError("delete target", err)
}
