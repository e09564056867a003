package localstack_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A reload or a new tab keeps the user signed in, on the page they were
// on, with no token kept by the page (only the "signed in" hint in
// localStorage; the identity provider's own session answers); after
// signing out, a reload stays signed out.
func TestDashboardSessionSurvivesReload(t *testing.T) {
	t.Parallel()
	s := startStack(t)
	b := newBrowser(t, s.base)
	email := b.signInAsNew("reload-")
	b.goTo("#/account", "#reveal-secret")

	var loc string
	b.run("reload", chromedp.Reload(), chromedp.WaitVisible("#reveal-secret", chromedp.ByQuery), chromedp.Location(&loc))
	if !strings.HasSuffix(loc, "/#/account") {
		t.Errorf("after a reload the user is at %s, want the account page", loc)
	}
	if who := b.text("#who"); !strings.Contains(who, email) {
		t.Errorf("after a reload signed in as %q, want %s", who, email)
	}
	var stored string
	b.run("storage", chromedp.Evaluate(`JSON.stringify(Object.assign({}, localStorage, sessionStorage))`, &stored))
	if strings.Contains(stored, "eyJ") || strings.Contains(stored, "pt_") {
		t.Errorf("the page keeps a token in web storage: %s", stored)
	}

	// A new tab of the same browser, straight to a page.
	tab, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	var who string
	if err := chromedp.Run(tab, chromedp.Navigate(s.base+"/#/targets"), chromedp.WaitVisible("#add-target", chromedp.ByQuery),
		chromedp.Text("#who", &who, chromedp.ByQuery)); err != nil {
		t.Fatalf("new tab: %v", err)
	}
	if !strings.Contains(who, email) {
		t.Errorf("a new tab is signed in as %q, want %s", who, email)
	}

	b.signOut()
	b.run("reload signed out", chromedp.Reload(), chromedp.WaitVisible("#sign-in", chromedp.ByQuery))
}
