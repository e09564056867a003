// Callback URLs: where a scan's webhook may be delivered (CONTRACT
// "Webhooks").

package api

import (
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"secscan/shared/apierr"
	"secscan/shared/domainname"
	"secscan/shared/netguard"
)

// CallbackPolicy is what callback URLs may point at (CONTRACT "Webhooks").
type CallbackPolicy struct {
	AllowInsecure bool // ALLOW_INSECURE_CALLBACKS: http:// accepted
	AllowPrivate  bool // ALLOW_PRIVATE_NETWORKS: localhost and private IP literals accepted
}

// maxCallbackURL bounds a callback URL.
const maxCallbackURL = 2048

// check accepts an absolute https URL of at most 2048 characters whose host
// is a name or a public IP literal, and returns it normalised. Names are
// checked again, after resolution, by the guarded dialer at delivery time.
func (c CallbackPolicy) check(raw string) (string, error) {
	u, err := c.parse(raw)
	if err != nil {
		return "", err
	}
	if c.AllowPrivate {
		return u.String(), nil
	}
	if err := checkPublicHost(strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))); err != nil {
		return "", err
	}
	return u.String(), nil
}

// parse checks everything of a callback URL but where its host points.
func (c CallbackPolicy) parse(raw string) (*url.URL, error) {
	if len(raw) > maxCallbackURL {
		return nil, apierr.Field("callback_url", "must be at most %d characters", maxCallbackURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, apierr.Field("callback_url", "must be an absolute https URL")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !c.AllowInsecure) {
		return nil, apierr.Field("callback_url", "must use https")
	}
	if err := checkCallbackParts(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkCallbackParts refuses the parts a callback URL may not have:
// credentials, a fragment, a port out of range.
func checkCallbackParts(u *url.URL) error {
	switch {
	case u.User != nil:
		return apierr.Field("callback_url", "must not carry credentials")
	case u.Fragment != "":
		return apierr.Field("callback_url", "must not have a fragment")
	case u.Port() != "" && !validPort(u.Port()):
		return apierr.Field("callback_url", "port must be between 1 and 65535")
	}
	return nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// checkPublicHost refuses a host (lower case, no trailing dot) that names
// localhost, is a non-public IP literal, or is no valid name.
func checkPublicHost(host string) error {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return apierr.Field("callback_url", "must not point at localhost")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		var refused *netguard.AddressError
		if err := (netguard.Policy{}).Check(ip); errors.As(err, &refused) {
			return apierr.Field("callback_url", "must point at a public address: %s", refused.Summary())
		}
		return nil
	}
	if net.ParseIP(host) != nil {
		return nil
	}
	if _, err := domainname.Normalize(host); err != nil {
		return apierr.Field("callback_url", "host %s", err.Error())
	}
	return nil
}
