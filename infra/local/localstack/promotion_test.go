package localstack_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"secscan/infra/local/localstack"
	"secscan/shared/app"
	"secscan/shared/config"
)

// A first sign-in can land on any endpoint, and when ADMIN_EMAILS lists its
// email it also records the promotion (PROMOTION#<email>) in the same
// transaction. Every function signs a listed newcomer in and answers without
// a server error, and TestMain's policy check holds each function's
// DynamoDB calls, the promotion's included, to its template policy: a
// function confined by dynamodb:LeadingKeys without PROMOTION#* failed such a
// first sign-in.
func TestAdminFirstSignInOnEveryEndpoint(t *testing.T) {
	var emails []string
	routes := templateRoutes(t)
	for i := range routes {
		emails = append(emails, fmt.Sprintf("boss%d@example.com", i))
	}
	s := startStack(t, func(c *config.Config, _ *app.Options) { c.AdminEmails = strings.Join(emails, ",") })
	param := regexp.MustCompile(`\{[^}]+\}`)
	for i, r := range routes {
		if r.Function == "HealthFunction" || r.Function == localstack.DashboardFunction {
			continue
		}
		session := s.session(t, fmt.Sprintf("boss-%d", i), emails[i])
		res := s.call(r.Method, param.ReplaceAllString(r.Path, "x"), session, map[string]any{})
		if res.status >= 500 {
			t.Errorf("%s %s (%s), an admin's first sign-in: %d %s", r.Method, r.Path, r.Function, res.status, res.body)
			continue
		}
		var me struct {
			IsAdmin bool `json:"is_admin"`
		}
		s.call(http.MethodGet, "/api/auth/me", session, nil).json(t, &me)
		if !me.IsAdmin {
			t.Errorf("%s (%s): the first sign-in of %s made no admin", r.Path, r.Function, emails[i])
		}
	}
}
