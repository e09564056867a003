package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
	"secscan/shared/scans"
)

// Monthly credit allowances (CONTRACT "Plans"). One counter item per user
// per calendar month (UTC), in a partition of its own so that the scan agent,
// which releases reservations when scans end, is granted exactly this item
// shape (CREDITS#*) and nothing of the user's partition:
//
//	pk                sk                 attributes
//	CREDITS#<usr id>  MONTH#<YYYY-MM>    used, reserved, committed (= used + reserved)
//
// Creating a scan reserves its max_credits in the same transaction that
// writes the scan, conditional on committed + max_credits <= allowance
// (condition expressions cannot add, hence the committed sum), so concurrent
// creations never overspend and an idempotent replay reserves nothing. The
// end of a scan (EndScan, every terminal path) moves credits_used from
// reserved to used and gives the rest back, in the transaction that writes
// the terminal status, against the month stored on the scan.

const creditsPrefix = "CREDITS#"

func creditsKey(userID, month string) map[string]types.AttributeValue {
	return key(creditsPrefix+userID, "MONTH#"+month)
}

// CreditMonth is the allowance month of t: "2006-01", UTC.
func CreditMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// RenewsAt is the first instant of the month after month ("2006-01").
func RenewsAt(month string) time.Time {
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return time.Time{}
	}
	return t.AddDate(0, 1, 0)
}

// Credits are a user's counters for one month.
type Credits struct {
	Used     int `dynamodbav:"used"`
	Reserved int `dynamodbav:"reserved"`
}

// AllowanceError refuses a reservation that would take the month's used +
// reserved credits past the plan's allowance.
type AllowanceError struct {
	Month     string // "2006-01"
	Used      int
	Reserved  int
	Allowance int
}

// Classify is the 403 of a creation the month's allowance cannot hold
// (CONTRACT "Plans").
func (e *AllowanceError) Classify() *apierr.Error {
	return apierr.New(apierr.Forbidden, "Monthly credit allowance exhausted: %d of %d credits used; it renews on %s",
		e.Used, e.Allowance, RenewsAt(e.Month).Format(time.DateOnly))
}

func (e *AllowanceError) Error() string {
	return fmt.Sprintf("monthly credit allowance of %s exhausted: %d used, %d reserved of %d", e.Month, e.Used, e.Reserved, e.Allowance)
}

// Credits returns the user's counters for month (zero when nothing was
// reserved that month).
func (s *Store) Credits(ctx context.Context, userID, month string) (Credits, error) {
	var c Credits
	err := s.get(ctx, creditsKey(userID, month), &c)
	if IsNotFound(err) {
		return Credits{}, nil
	}
	if err != nil {
		return Credits{}, fmt.Errorf("get credits: %w", err)
	}
	return c, nil
}

// reserveCredits is the transaction item that reserves amount in the month;
// with limited, only while committed + amount <= allowance.
func (s *Store) reserveCredits(userID, month string, amount, allowance int, limited bool) types.TransactWriteItem {
	u := &types.Update{
		TableName: &s.table,
		Key:       creditsKey(userID, month),
		UpdateExpression: aws.String("SET used = if_not_exists(used, :zero), " +
			"reserved = if_not_exists(reserved, :zero) + :n, committed = if_not_exists(committed, :zero) + :n"),
		ExpressionAttributeValues:           map[string]types.AttributeValue{":zero": number(0), ":n": number(int64(amount))},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if limited {
		room := int64(allowance - amount)
		if room < 0 {
			// Even an empty month cannot hold it: a condition no item meets.
			u.ConditionExpression = aws.String("committed < :zero")
		} else {
			u.ConditionExpression = aws.String("attribute_not_exists(committed) OR committed <= :room")
			u.ExpressionAttributeValues[":room"] = number(room)
		}
	}
	return types.TransactWriteItem{Update: u}
}

// allowanceError reads the refused counters (the failed item's old image).
func allowanceError(old map[string]types.AttributeValue, month string, allowance int) error {
	var c Credits
	if err := attributevalue.UnmarshalMap(old, &c); err != nil {
		return fmt.Errorf("decode credits: %w", err)
	}
	return &AllowanceError{Month: month, Used: c.Used, Reserved: c.Reserved, Allowance: allowance}
}

// releaseCredits is the transaction item that settles an ending scan: its
// credits_used become used, its whole reservation leaves reserved.
func (s *Store) releaseCredits(sc scans.Scan) types.TransactWriteItem {
	used, reserved := int64(sc.CreditsUsed), int64(sc.MaxCredits)
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table,
		Key:       creditsKey(sc.UserID, sc.CreditMonth),
		UpdateExpression: aws.String("SET used = if_not_exists(used, :zero) + :used, " +
			"reserved = if_not_exists(reserved, :zero) - :reserved, committed = if_not_exists(committed, :zero) - :unused"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":zero": number(0), ":used": number(used), ":reserved": number(reserved), ":unused": number(reserved - used),
		},
	}}
}

// creditsUsedValue is the condition value pinning the credits a release settles.
func creditsUsedValue(n int) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
}
