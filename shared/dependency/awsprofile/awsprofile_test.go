package awsprofile_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"secscan/shared/dependency"
	_ "secscan/shared/dependency/awsprofile"
)

// With the package linked, a client for AWS takes a developer's profile, as
// the AWS CLI would; without it (a Lambda function), only the environment.
func TestProfileCredentials(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, []byte("[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AWS_SHARED_CREDENTIALS_FILE": creds, "AWS_CONFIG_FILE": os.DevNull, "AWS_PROFILE": "dev",
		"AWS_REGION": "eu-central-1", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": ""} {
		t.Setenv(k, v)
	}
	cfg, err := dependency.Config(context.Background(), "", dependency.Default)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || got.AccessKeyID != "AKIDPROFILE" || cfg.Region != "eu-central-1" || cfg.HTTPClient == nil {
		t.Fatalf("config %+v, credentials %+v, %v: want the dev profile", cfg, got, err)
	}
}
