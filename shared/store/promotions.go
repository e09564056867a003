package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrPromotionUsed refuses a second AdminEmails promotion of one email: the
// email made an admin once already (that user may since have been demoted,
// or be gone), so a new identity with it starts as a plain user.
var ErrPromotionUsed = errors.New("email was promoted to admin before")

// promotionItem records that the AdminEmails list promoted an email's first
// user to admin. It lives outside every user's partition and has no TTL:
// deleting or demoting the user leaves it, so the list promotes an email at
// most once for the life of the table.
type promotionItem struct {
	PK         string    `dynamodbav:"pk"`
	SK         string    `dynamodbav:"sk"`
	UserID     string    `dynamodbav:"user_id"`
	PromotedAt time.Time `dynamodbav:"promoted_at"`
}

func newPromotionItem(u User) promotionItem {
	return promotionItem{PK: promotionPK(u.Email), SK: "PROMOTION", UserID: u.ID, PromotedAt: u.CreatedAt.UTC()}
}

// AdminPromotion returns the user AdminEmails promoted for email, and when;
// ErrNotFound when the email was never promoted.
func (s *Store) AdminPromotion(ctx context.Context, email string) (userID string, at time.Time, err error) {
	var it promotionItem
	if err := s.get(ctx, key(promotionPK(email), "PROMOTION"), &it); err != nil {
		return "", time.Time{}, fmt.Errorf("get admin promotion of %s: %w", email, err)
	}
	return it.UserID, it.PromotedAt, nil
}
