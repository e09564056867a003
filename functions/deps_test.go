// Package functions_test checks what each Lambda of functions/ links: a
// function links only what its handler needs, so its binary (and its cold
// start, which runs every linked package's initialisation) stays small.
package functions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// heavy are packages (by import path prefix) only some functions may link.
var heavy = []struct {
	prefix  string
	allowed []string // function directories
}{
	{"github.com/johnfercher/maroto/", []string{"report-pdf"}},
	{"github.com/pdfcpu/pdfcpu/", []string{"report-pdf"}},
	{"secscan/shared/report/pdf", []string{"report-pdf"}},
	// The renderers: get-scan and the other endpoints answer JSON.
	{"secscan/shared/report", []string{"report-markdown", "report-html", "report-pdf", "findings-csv"}},
	{"secscan/shared/scanners", []string{"scan-agent", "scan-step", "run-retest"}},
	{"github.com/zricethezav/gitleaks/", []string{"scan-agent", "scan-step", "run-retest"}},
	{"github.com/chromedp/", []string{"scan-agent", "scan-step", "run-retest"}},
	{"secscan/shared/lambdainvoke", []string{"create-retest"}},
	{"secscan/shared/agent", []string{"scan-agent", "scan-step", "webhook"}},
	{"secscan/shared/planner", []string{"scan-agent", "scan-step", "webhook"}},
	{"secscan/shared/app", nil}, // the whole service: the local stack's
	{"goftp.io/", nil},          // the FTP server of the demo target and the ftp_audit tests
	// The SDK's configuration chain (profiles, SSO, STS): a function's
	// credentials are in its environment (dependency.Config).
	{"github.com/aws/aws-sdk-go-v2/config", nil},
	{"github.com/aws/aws-sdk-go-v2/service/sso", nil},
	{"github.com/aws/aws-sdk-go-v2/service/sts", nil},
	{"secscan/shared/dependency/awsprofile", nil},
	{"github.com/aws/aws-sdk-go-v2/service/sfn", []string{"create-scan", "run-schedule", "scheduled-scan"}},
	{"github.com/aws/aws-sdk-go-v2/service/scheduler", []string{"create-schedule", "update-schedule", "delete-schedule", "delete-target"}},
}

// deps lists every function's transitive imports, as built for Lambda.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./...")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	byFunction := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		byFunction[filepath.Base(fields[0])] = fields[1:]
	}
	return byFunction
}

func TestFunctionsLinkOnlyWhatTheyNeed(t *testing.T) {
	t.Parallel()
	byFunction := deps(t)
	if len(byFunction) < 24 {
		t.Fatalf("go list found %d functions, want every directory of functions/", len(byFunction))
	}
	for fn, imports := range byFunction {
		for _, h := range heavy {
			if slices.Contains(h.allowed, fn) {
				continue
			}
			for _, imp := range imports {
				if strings.HasPrefix(imp, h.prefix) {
					t.Errorf("%s links %s, which only %v may", fn, imp, h.allowed)
					break
				}
			}
		}
	}
	// The scanners are where they must be: the check above is not vacuous.
	if !slices.Contains(byFunction["scan-step"], "secscan/shared/scanners") ||
		!slices.Contains(byFunction["run-retest"], "secscan/shared/scanners") ||
		!slices.Contains(byFunction["report-pdf"], "secscan/shared/report/pdf") {
		t.Error("scan-step must link the scanners and report-pdf the PDF renderer")
	}
}

// health calls nothing: it links the HTTP layer, not the store and the AWS
// SDK, whose initialisation would make its cold start several times a bare
// Lambda's (issue 22: health at most 1.5 times hello world).
func TestHealthLinksNeitherTheStoreNorTheSDK(t *testing.T) {
	t.Parallel()
	imports := deps(t)["health"]
	if !slices.Contains(imports, "secscan/shared/httpapi") {
		t.Fatalf("health does not link httpapi: %v", imports)
	}
	for _, imp := range imports {
		if strings.HasPrefix(imp, "github.com/aws/aws-sdk-go-v2/") || strings.HasPrefix(imp, "secscan/shared/store") ||
			imp == "secscan/shared/auth" || imp == "secscan/shared/api" {
			t.Errorf("health links %s", imp)
		}
	}
}
