package devidp

import (
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The provider's own browser session, as the Cognito hosted UI keeps one: a
// sign-in sets a cookie on the provider's path, and a later authorize
// request that carries it is answered with a code at once, without the
// email page. That is how the dashboard stays signed in across a reload or
// in a new tab without keeping a token anywhere but in the page's memory.
// The cookie holds a JWT signed with the provider's key (so it outlives a
// restart of the local stack when the key does), HttpOnly, SameSite=Lax,
// path /dev/; /dev/logout ends it.

const (
	// browserCookie names the provider's session cookie.
	browserCookie = "secscan_dev_idp"
	// browserTTL is how long a provider session lasts.
	browserTTL = 12 * time.Hour
	// browserAudience keeps a session cookie from passing as an ID token
	// and the other way round.
	browserAudience = "devidp-browser-session"
)

// setBrowserSession starts the provider's session for email.
func (p *Provider) setBrowserSession(w http.ResponseWriter, email string) error {
	now := time.Now()
	tok, err := p.Sign(jwt.MapClaims{"iss": p.Issuer, "aud": browserAudience, "sub": email,
		"iat": now.Unix(), "exp": now.Add(browserTTL).Unix()})
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: tok, Path: "/dev/", MaxAge: int(browserTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode})
	return nil
}

// browserSession returns the email of the request's provider session, if
// it has a valid one.
func (p *Provider) browserSession(r *http.Request) (string, bool) {
	c, err := r.Cookie(browserCookie)
	if err != nil {
		return "", false
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(c.Value, claims, func(*jwt.Token) (any, error) { return &p.key.PublicKey, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(p.Issuer), jwt.WithAudience(browserAudience), jwt.WithExpirationRequired())
	if err != nil {
		return "", false
	}
	email, _ := claims["sub"].(string)
	return email, email != ""
}

// endBrowserSession deletes the provider's session cookie.
func endBrowserSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: browserCookie, Value: "", Path: "/dev/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
}
