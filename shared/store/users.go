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

// User is an account.
type User struct {
	ID        string    `dynamodbav:"id"`
	Email     string    `dynamodbav:"email"`
	Plan      string    `dynamodbav:"plan"`
	IsAdmin   bool      `dynamodbav:"is_admin"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

type userItem struct {
	PK   string `dynamodbav:"pk"`
	SK   string `dynamodbav:"sk"`
	Type string `dynamodbav:"type"`
	User
}

func newUserItem(u User) userItem {
	return userItem{PK: userPK(u.ID), SK: "PROFILE", Type: "user", User: u}
}

type identityItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	UserID string `dynamodbav:"user_id"`
}

// emailItem claims an address for one user. Linkable marks the claim of an
// admin-created user that no identity has signed in as yet: the one-shot
// permission for a first sign-in with that verified email to take the
// account, removed by the same write that links the identity.
type emailItem struct {
	PK       string `dynamodbav:"pk"`
	SK       string `dynamodbav:"sk"`
	UserID   string `dynamodbav:"user_id"`
	Linkable bool   `dynamodbav:"linkable,omitempty"`
}

// DecodeUser reads a user from a profile item's attributes (as returned by
// the rate limiter's update, which is how authentication loads the user).
func DecodeUser(item map[string]types.AttributeValue) (User, error) {
	var u userItem
	if err := attributevalue.UnmarshalMap(item, &u); err != nil {
		return User{}, fmt.Errorf("decode user: %w", err)
	}
	if u.ID == "" {
		return User{}, ErrNotFound
	}
	return u.User, nil
}

// GetUser returns the user with id.
func (s *Store) GetUser(ctx context.Context, id string) (User, error) {
	var u userItem
	if err := s.getRecord(ctx, UserKey(id), &u, "user", id); err != nil {
		return User{}, err
	}
	return u.User, nil
}

// UserIDByIdentity returns the user linked to the identity provider's (iss, sub).
func (s *Store) UserIDByIdentity(ctx context.Context, iss, sub string) (string, error) {
	var it identityItem
	if err := s.get(ctx, key(identityPK(iss, sub), "IDENTITY"), &it); err != nil {
		return "", fmt.Errorf("get identity: %w", err)
	}
	return it.UserID, nil
}

// UserIDByEmail returns the user that holds email.
func (s *Store) UserIDByEmail(ctx context.Context, email string) (string, error) {
	var it emailItem
	if err := s.get(ctx, key(emailPK(email), "EMAIL"), &it); err != nil {
		return "", fmt.Errorf("get email %s: %w", email, err)
	}
	return it.UserID, nil
}

// ErrNotLinkable refuses to link an identity to the holder of an email that
// is not an admin-created, never-linked user.
var ErrNotLinkable = errors.New("email holder cannot be linked")

// LinkIdentity links (iss, sub) to the admin-created user that holds email,
// consuming the claim's one-shot Linkable flag in the same transaction.
// ErrConflict when the identity is already linked (a concurrent first
// request won the race); ErrNotLinkable when the email's holder is not
// userID, was not created by an admin, or has been linked before.
func (s *Store) LinkIdentity(ctx context.Context, iss, sub, email, userID string) error {
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		putNew(s.table, identityItem{PK: identityPK(iss, sub), SK: "IDENTITY", UserID: userID}),
		{Update: &types.Update{
			TableName:           &s.table,
			Key:                 key(emailPK(email), "EMAIL"),
			UpdateExpression:    aws.String("REMOVE linkable"),
			ConditionExpression: aws.String("user_id = :uid AND linkable = :true"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":uid":  &types.AttributeValueMemberS{Value: userID},
				":true": &types.AttributeValueMemberBOOL{Value: true},
			},
		}},
	}})
	if _, ok := transactionConflict(err, 0); ok {
		return ErrConflict
	}
	if _, ok := transactionConflict(err, 1); ok {
		return ErrNotLinkable
	}
	return dbError("link identity", err)
}

// NewUser describes a user to create, with what should point at it.
type NewUser struct {
	User        User
	ClaimEmail  bool      // also register the email -> user mapping (must be free)
	Linkable    bool      // with ClaimEmail: a first verified sign-in may link to the user once
	IdentityISS string    // when set, link (IdentityISS, IdentitySub) to the user
	IdentitySub string    //
	FirstToken  *NewToken // when set, create this API token for the user
	// AdminPromotion records that AdminEmails made this user an admin: the
	// email's one promotion for the life of the table (promotions.go).
	AdminPromotion bool
}

// CreateUser writes the user and its links in one transaction. ErrConflict
// when the email is claimed already or the identity is linked already;
// ErrPromotionUsed when AdminPromotion is set and the email has been
// promoted before.
func (s *Store) CreateUser(ctx context.Context, n NewUser) error {
	items := []types.TransactWriteItem{putNew(s.table, newUserItem(n.User))}
	promotion := -1
	if n.AdminPromotion {
		promotion = len(items)
		items = append(items, putNew(s.table, newPromotionItem(n.User)))
	}
	if n.ClaimEmail {
		items = append(items, putNew(s.table, emailItem{PK: emailPK(n.User.Email), SK: "EMAIL", UserID: n.User.ID, Linkable: n.Linkable}))
	}
	if n.IdentityISS != "" {
		items = append(items, putNew(s.table, identityItem{PK: identityPK(n.IdentityISS, n.IdentitySub), SK: "IDENTITY", UserID: n.User.ID}))
	}
	if n.FirstToken != nil {
		t := *n.FirstToken
		t.UserID = n.User.ID
		items = append(items, tokenItems(s.table, t)...)
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	for i := range items {
		if _, ok := transactionConflict(err, i); ok {
			if i == promotion {
				return ErrPromotionUsed
			}
			return ErrConflict
		}
	}
	return dbError("create user", err)
}

// UpdateUser changes a user's plan and/or admin flag and returns the result.
func (s *Store) UpdateUser(ctx context.Context, id string, plan *string, isAdmin *bool) (User, error) {
	expr, names, values := "SET #type = :type", map[string]string{"#type": "type"},
		map[string]types.AttributeValue{":type": &types.AttributeValueMemberS{Value: "user"}}
	if plan != nil {
		expr += ", #plan = :plan"
		names["#plan"] = "plan"
		values[":plan"] = &types.AttributeValueMemberS{Value: *plan}
	}
	if isAdmin != nil {
		expr += ", is_admin = :admin"
		values[":admin"] = &types.AttributeValueMemberBOOL{Value: *isAdmin}
	}
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       UserKey(id),
		UpdateExpression:          &expr,
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if _, ok := IsConditionFailed(err); ok {
		return User{}, notFound("user", id)
	}
	if err != nil {
		return User{}, dbError("update user", err)
	}
	return DecodeUser(res.Attributes)
}
