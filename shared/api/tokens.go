package api

import (
	"context"
	"net/http"
	"time"
	"unicode/utf8"

	"secscan/shared/apierr"
	"secscan/shared/auth"
	"secscan/shared/httpapi"
	"secscan/shared/ids"
	"secscan/shared/plans"
	"secscan/shared/store"
	"secscan/shared/webhook"
)

// accountAction guards the account's credentials: minting and revoking
// tokens and handling the webhook secret need a browser session, so a leaked
// API token cannot mint itself successors or read the signing secret.
func accountAction(h AuthedHandler) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if p.Via != auth.ViaSession {
			return apierr.New(apierr.Forbidden, "This action requires a browser session")
		}
		return h(w, r, p)
	}
}

type tokenJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Token       string  `json:"token,omitempty"`
	TokenPrefix string  `json:"token_prefix"`
	CreatedAt   string  `json:"created_at"`
	ExpiresAt   *string `json:"expires_at"`
	LastUsedAt  *string `json:"last_used_at"`
}

func renderToken(t store.Token) tokenJSON {
	return tokenJSON{ID: t.ID, Name: t.Name, TokenPrefix: t.Prefix, CreatedAt: timestamp(t.CreatedAt),
		ExpiresAt: optionalTimestamp(t.ExpiresAt), LastUsedAt: optionalTimestamp(t.LastUsedAt)}
}

// newTokenRecord mints a token value and the record that stores only its hash.
func newTokenRecord(userID, name string, expiresAt *time.Time, now time.Time) (string, store.Token, error) {
	value, err := auth.NewAPIToken()
	if err != nil {
		return "", store.Token{}, err
	}
	return value, store.Token{
		ID: ids.New(ids.Token, now), UserID: userID, Name: name, Prefix: auth.DisplayPrefix(value),
		Hash: auth.HashToken(value), CreatedAt: now, ExpiresAt: expiresAt,
	}, nil
}

type tokenCreate struct {
	Name          *string `json:"name"`
	ExpiresInDays *int    `json:"expires_in_days"`
}

// The token endpoints' dependencies, each the few methods of the store
// (*store.Store) its handler calls.
type (
	tokenCreator interface {
		CreateToken(ctx context.Context, t store.Token) error
	}
	tokenLister interface {
		ListTokens(ctx context.Context, userID string, page store.Page) ([]store.Token, string, error)
	}
	tokenDeleter interface {
		DeleteToken(ctx context.Context, userID, tokenID string) error
	}
	webhookSecretReader interface {
		MigrateWebhookSecret(ctx context.Context, userID string) error
		WebhookSecret(ctx context.Context, userID string, candidate store.WebhookSecret) (store.WebhookSecret, error)
	}
	webhookSecretRotator interface {
		RotateWebhookSecret(ctx context.Context, userID string, next store.WebhookSecret) (store.WebhookSecret, error)
	}
)

// createToken mints an API token (201, the value shown this once): 403
// below the starter plan, 422 for the name or the expiry.
func createToken(st tokenCreator, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if !plans.Plan(p.User.Plan).CanMintTokens() {
			return apierr.New(apierr.Forbidden, "API tokens are available on the starter plan and above; your plan is %s", p.User.Plan)
		}
		var in tokenCreate
		if err := httpapi.DecodeJSON(w, r, &in); err != nil {
			return err
		}
		at := now().UTC()
		expiresAt, err := checkTokenCreate(in, at)
		if err != nil {
			return err
		}
		value, record, err := newTokenRecord(p.User.ID, *in.Name, expiresAt, at)
		if err != nil {
			return err
		}
		if err := st.CreateToken(r.Context(), record); err != nil {
			return err
		}
		out := renderToken(record)
		out.Token = value
		httpapi.WriteJSON(w, http.StatusCreated, out)
		return nil
	}
}

// checkTokenCreate checks the body of POST /api/tokens (422) and returns
// the expiry it asks for (nil: none).
func checkTokenCreate(in tokenCreate, now time.Time) (*time.Time, error) {
	if in.Name == nil {
		return nil, apierr.Field("name", "is required")
	}
	if n := utf8.RuneCountInString(*in.Name); n < 1 || n > 100 || !utf8.ValidString(*in.Name) {
		return nil, apierr.Field("name", "must be 1 to 100 characters")
	}
	if in.ExpiresInDays == nil {
		return nil, nil
	}
	if *in.ExpiresInDays < 1 || *in.ExpiresInDays > 365 {
		return nil, apierr.Field("expires_in_days", "must be an integer from 1 to 365")
	}
	t := now.AddDate(0, 0, *in.ExpiresInDays)
	return &t, nil
}

// listTokens is a page of the caller's tokens (never their values).
func listTokens(st tokenLister) AuthedHandler { return listOwn(st.ListTokens, renderToken) }

// deleteToken revokes the caller's token (204); another user's is a 404.
func deleteToken(st tokenDeleter) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		id, err := httpapi.PathID(r, ids.Token, ids.Valid, "Token")
		if err != nil {
			return err
		}
		if err := st.DeleteToken(r.Context(), p.User.ID, id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

type webhookSecretJSON struct {
	Secret    string `json:"secret"`
	CreatedAt string `json:"created_at"`
}

func webhooksOnPlan(p auth.Principal) error {
	if !plans.Plan(p.User.Plan).HasWebhooks() {
		return apierr.New(apierr.Forbidden, "Webhooks are available on the starter plan and above; your plan is %s", p.User.Plan)
	}
	return nil
}

// getWebhookSecret is the account's webhook signing secret, made on first
// use (403 below the starter plan).
func getWebhookSecret(st webhookSecretReader, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if err := webhooksOnPlan(p); err != nil {
			return err
		}
		candidate, err := webhook.NewSecret(now())
		if err != nil {
			return err
		}
		// The account endpoint moves a secret still at its legacy key (store package).
		if err := st.MigrateWebhookSecret(r.Context(), p.User.ID); err != nil {
			return err
		}
		s, err := st.WebhookSecret(r.Context(), p.User.ID, candidate)
		if err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, webhookSecretJSON{Secret: s.Secret, CreatedAt: timestamp(s.CreatedAt)})
		return nil
	}
}

// rotateWebhookSecret replaces the secret; of two concurrent rotations the
// loser gets the store's 409.
func rotateWebhookSecret(st webhookSecretRotator, now func() time.Time) AuthedHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if err := webhooksOnPlan(p); err != nil {
			return err
		}
		next, err := webhook.NewSecret(now())
		if err != nil {
			return err
		}
		if next, err = st.RotateWebhookSecret(r.Context(), p.User.ID, next); err != nil {
			return err
		}
		httpapi.WriteJSON(w, http.StatusOK, webhookSecretJSON{Secret: next.Secret, CreatedAt: timestamp(next.CreatedAt)})
		return nil
	}
}
