package dependency_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"secscan/shared/dependency"
)

// lambdaEnv sets the variables Lambda gives a function, and nothing of a
// developer's configuration.
func lambdaEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY",
		"AWS_SECRET_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SCHEDULER"} {
		t.Setenv(k, vars[k])
	}
}

// A function's client signs with the role's credentials from the environment,
// in its region, at AWS_ENDPOINT_URL when set: what the SDK's chain would do.
func TestConfigFromTheLambdaEnvironment(t *testing.T) {
	var auth, token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, token = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	lambdaEnv(t, map[string]string{"AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "AKIDROLE",
		"AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "session", "AWS_ENDPOINT_URL": srv.URL})
	cfg, err := dependency.Config(context.Background(), "", small)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region != "eu-west-3" {
		t.Fatalf("region %q", cfg.Region)
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true })
	if err := getItem(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(auth, "Credential=AKIDROLE/") || !strings.Contains(auth, "/eu-west-3/dynamodb/") || token != "session" {
		t.Fatalf("signed %q with token %q, want the role's key, region and session token", auth, token)
	}
}

func TestConfigFromTheEnvironmentAliasesAndRefusals(t *testing.T) {
	lambdaEnv(t, map[string]string{"AWS_DEFAULT_REGION": "us-west-2", "AWS_ACCESS_KEY": "AKIDOLD", "AWS_SECRET_KEY": "s"})
	cfg, err := dependency.Config(context.Background(), "", small)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || cfg.Region != "us-west-2" || creds.AccessKeyID != "AKIDOLD" || creds.SessionToken != "" || cfg.BaseEndpoint != nil {
		t.Fatalf("config %+v, credentials %+v, %v", cfg, creds, err)
	}
	for _, missing := range []string{"AWS_DEFAULT_REGION", "AWS_ACCESS_KEY", "AWS_SECRET_KEY"} {
		vars := map[string]string{"AWS_DEFAULT_REGION": "us-west-2", "AWS_ACCESS_KEY": "AKIDOLD", "AWS_SECRET_KEY": "s"}
		delete(vars, missing)
		lambdaEnv(t, vars)
		if _, err := dependency.Config(context.Background(), "", small); err == nil || !strings.Contains(err.Error(), "AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set") {
			t.Errorf("without %s: %v, want the variables named", missing, err)
		}
	}
	// A local endpoint never reads the environment.
	if cfg, err := dependency.Config(context.Background(), "http://127.0.0.1:1", small); err != nil || cfg.Region != "us-east-1" {
		t.Fatalf("local: %+v %v", cfg, err)
	}
}

func TestServiceEndpoint(t *testing.T) {
	lambdaEnv(t, map[string]string{"AWS_ENDPOINT_URL_SCHEDULER": "http://127.0.0.1:9"})
	if u := dependency.ServiceEndpoint("SCHEDULER"); u == nil || *u != "http://127.0.0.1:9" {
		t.Fatalf("SCHEDULER: %v", u)
	}
	if u := dependency.ServiceEndpoint("BEDROCK_RUNTIME"); u != nil {
		t.Fatalf("BEDROCK_RUNTIME unset, got %q", *u)
	}
}
