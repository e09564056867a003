package localstack_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"secscan/infra/local/dynamotest"
)

// infra/env.local.json is what `sam local start-api` (make sam-local) gives
// the functions in their containers: it must name only variables the
// template declares (sam local silently drops the others) and reach the
// local stack started as the Makefile says, from inside a container.
func TestSamLocalEnvReachesTheLocalStack(t *testing.T) {
	t.Parallel()
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "infra", "env.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Parameters map[string]string }
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	_, tpl := dynamotest.Template(t)
	environment, _ := tpl.Globals.Function["Environment"].(map[string]any)
	declared, _ := environment["Variables"].(map[string]any)
	for name := range env.Parameters {
		if _, ok := declared[name]; !ok {
			t.Errorf("env.local.json sets %s, which the template's Globals do not declare: sam local ignores it", name)
		}
	}

	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	ddb, err := url.Parse(env.Parameters["DYNAMODB_ENDPOINT"])
	if err != nil || ddb.Hostname() != "host.docker.internal" ||
		!strings.Contains(string(makefile), "DYNAMODB_LOCAL_PORT="+ddb.Port()+" make run") {
		t.Errorf("DYNAMODB_ENDPOINT %q: want host.docker.internal on the port the Makefile tells make run to fix",
			env.Parameters["DYNAMODB_ENDPOINT"])
	}
	// The development identity provider of `make run` on its default address.
	const addr = "127.0.0.1:3000"
	if got, want := env.Parameters["JWT_JWKS_URL"], "http://host.docker.internal:3000/dev/jwks.json"; got != want {
		t.Errorf("JWT_JWKS_URL %q, want %q", got, want)
	}
	if got, want := env.Parameters["JWT_ISSUER"], "http://"+addr+"/dev"; got != want {
		t.Errorf("JWT_ISSUER %q, want the development provider's issuer %q", got, want)
	}
	if got := env.Parameters["JWT_AUDIENCE"]; got != "secscan-local" {
		t.Errorf("JWT_AUDIENCE %q, want secscan-local", got)
	}
}
