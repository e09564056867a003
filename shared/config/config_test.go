package config

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(Config) bool
	}{
		{name: "defaults", env: map[string]string{}, check: func(c Config) bool {
			return c.TableName == "secscan" && c.Version == "dev" && !c.AllowPrivateNetworks && !c.AllowInsecureCallbacks
		}},
		{name: "flags", env: map[string]string{"ALLOW_PRIVATE_NETWORKS": "true", "ALLOW_INSECURE_CALLBACKS": "1", "DNS_SERVER": "127.0.0.1:5353"},
			check: func(c Config) bool {
				return c.AllowPrivateNetworks && c.AllowInsecureCallbacks && c.DNSServer == "127.0.0.1:5353"
			}},
		{name: "bad bool", env: map[string]string{"ALLOW_PRIVATE_NETWORKS": "yes please"}, wantErr: "ALLOW_PRIVATE_NETWORKS"},
		{name: "dns without port", env: map[string]string{"DNS_SERVER": "127.0.0.1"}, wantErr: "DNS_SERVER"},
		{name: "admin email alone", env: map[string]string{"BOOTSTRAP_ADMIN_EMAIL": "a@example.com"}, wantErr: "together"},
		{name: "admin token not pt_", env: map[string]string{"BOOTSTRAP_ADMIN_EMAIL": "a@example.com", "BOOTSTRAP_ADMIN_TOKEN": "secret"}, wantErr: "pt_"},
		{name: "jwks without issuer", env: map[string]string{"JWT_JWKS_URL": "https://idp.example/jwks"}, wantErr: "JWT_ISSUER"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(func(k string) string { return c.env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil || !c.check(cfg) {
				t.Fatalf("cfg = %+v, err = %v", cfg, err)
			}
		})
	}
}
