package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// EndRetest writes r's end (its status, results, error and credits) when
// the stored retest is in one of the statuses from, and in the same
// transaction settles its reservation: r.CreditsUsed become used, the rest
// of r.Reserved is given back. The condition makes the settlement happen
// once however many writers race (the runner finishing, a reaper, a
// cancellation): the others get ErrConflict and write nothing.
func (s *Store) EndRetest(ctx context.Context, r scans.Retest, from ...scans.RetestStatus) error {
	if r.CreditsUsed > r.Reserved || r.CreditsUsed < 0 {
		return fmt.Errorf("end retest %s: %d credits used, %d reserved", r.ID, r.CreditsUsed, r.Reserved)
	}
	if len(from) == 0 || len(from) > 2 {
		return fmt.Errorf("end retest %s: %d statuses to end from", r.ID, len(from))
	}
	it, err := encodeRetest(r)
	if err != nil {
		return err
	}
	values := map[string]types.AttributeValue{":status": str(it.Status), ":body": str(it.Body), ":user": str(r.UserID)}
	cond := "user_id = :user AND (#status = :from0"
	for i, st := range from {
		name := fmt.Sprintf(":from%d", i)
		values[name] = str(string(st))
		if i > 0 {
			cond += " OR #status = " + name
		}
	}
	items := []types.TransactWriteItem{{Update: &types.Update{
		TableName: &s.table, Key: retestKey(r.ID),
		UpdateExpression:          aws.String("SET #status = :status, body = :body"),
		ConditionExpression:       aws.String(cond + ")"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
	}}}
	if r.Reserved > 0 {
		items = append(items, s.releaseCredits(scans.Scan{UserID: r.UserID, CreditMonth: r.CreditMonth, CreditsUsed: r.CreditsUsed, MaxCredits: r.Reserved}))
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if _, ok := transactionConflict(err, 0); ok {
		return fmt.Errorf("end retest %s: %w", r.ID, ErrConflict)
	}
	return dbError("end retest", err)
}

// RequestRetestCancel sets the cancellation flag of the user's running
// retest. ErrConflict when it is not running (queued, or ended already),
// ErrNotFound when it does not exist or is another user's.
func (s *Store) RequestRetestCancel(ctx context.Context, userID, id string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: retestKey(id),
		UpdateExpression:         aws.String("SET cancel_requested = :true"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND user_id = :user AND #status = :running"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":true": &types.AttributeValueMemberBOOL{Value: true}, ":user": str(userID), ":running": str(string(scans.RetestRunning)),
		},
	})
	if _, ok := IsConditionFailed(err); ok {
		if _, gerr := s.GetRetest(ctx, userID, id); gerr != nil {
			return gerr
		}
		return fmt.Errorf("cancel retest %s: %w", id, ErrConflict)
	}
	return dbError("cancel retest", err)
}

// RetestCancelRequested reports whether the retest's cancellation flag is
// set: one strongly consistent read of its record.
func (s *Store) RetestCancelRequested(ctx context.Context, userID, id string) (bool, error) {
	rt, err := s.GetRetest(ctx, userID, id)
	if err != nil {
		return false, err
	}
	return rt.CancelRequested, nil
}
