package localstack_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"secscan/infra/local/dynamotest"
	"secscan/infra/local/localstack"
	"secscan/shared/api"
	"secscan/shared/apispec"
	"secscan/shared/app"
	"secscan/shared/auth"
	"secscan/shared/retest"
	"secscan/shared/store"
)

// nothing stands for the dependencies an endpoint needs at start; none of
// its handlers is called here.
type nothing struct{}

func (nothing) Verify(context.Context, string, string, string) error { return nil }
func (nothing) StartScan(context.Context, string, string) error      { return nil }
func (nothing) LaunchRetest(context.Context, retest.Request) error   { return nil }

// template.yaml, the handlers, openapi.yaml, the Makefile and functions/ all
// name the same endpoints: drift in any of them fails here.
func TestTemplateRoutesMatchEverything(t *testing.T) {
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	routes := templateRoutes(t)
	endpoints := app.Handlers(&api.API{Store: store.New(nil, "t"), Auth: &auth.Authenticator{}, Now: time.Now,
		Verifier: nothing{}, Scans: nothing{}, Retests: nothing{}})
	endpoints[localstack.DashboardFunction] = http.NotFoundHandler()

	fromTemplate := map[string]bool{}
	for _, r := range routes {
		fromTemplate[r.Function] = true
	}
	if got, want := sortedKeys(fromTemplate), sortedKeys(endpoints); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("template functions %v\nhandlers           %v", got, want)
	}
	if _, err := localstack.NewRouter(routes, endpoints, nil); err != nil {
		t.Fatal(err)
	}

	spec, err := apispec.LoadRepoSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		item := spec.Doc().Paths.Find(r.Path)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("openapi.yaml does not document %s", r.Pattern())
		}
	}

	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)FUNCTIONS := (.*?)\n\n`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("no FUNCTIONS list in the Makefile")
	}
	var fromMake []string
	for _, f := range strings.Fields(strings.ReplaceAll(string(m[1]), `\`, " ")) {
		fromMake = append(fromMake, f+"Function")
		dir := filepath.Join(root, "functions", strings.ToLower(regexp.MustCompile(`([a-z0-9])([A-Z])`).ReplaceAllString(f, "$1-$2")))
		if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
			t.Errorf("function %s has no %s/main.go", f, dir)
		}
	}
	sort.Strings(fromMake)
	// Each function's main serves its own entry of the local stack's table:
	// a method of api.API, or (for the functions that must not link all of
	// package api's dependencies) the handler of its own package.
	ownPackage := map[string]string{
		"HealthFunction":         "lambdahttp.Start(health.Handler(",
		"ReportMarkdownFunction": "lambdahttp.Start(reports.Of(a, nil).Markdown())",
		"ReportHTMLFunction":     "lambdahttp.Start(reports.Of(a, nil).HTML())",
		"ReportPDFFunction":      "lambdahttp.Start(reports.Of(a, pdf.Render).PDF())",
		"FindingsCSVFunction":    "lambdahttp.Start(reports.Of(a, nil).CSV())",
	}
	for name, endpoint := range app.Endpoints {
		method := runtime.FuncForPC(reflect.ValueOf(endpoint).Pointer()).Name()
		method = method[strings.LastIndex(method, ".")+1:]
		dir := strings.ToLower(regexp.MustCompile(`([a-z0-9])([A-Z])`).ReplaceAllString(strings.TrimSuffix(name, "Function"), "$1-$2"))
		main, err := os.ReadFile(filepath.Join(root, "functions", dir, "main.go"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := "lambdahttp.Start(a." + method + "())"
		if own, ok := ownPackage[name]; ok {
			want = own
		}
		if !strings.Contains(string(main), want) {
			t.Errorf("functions/%s/main.go does not serve %s, the local stack's handler of %s", dir, want, name)
		}
	}
	_, tpl := dynamotest.Template(t)
	if strings.Join(fromMake, " ") != strings.Join(tpl.Functions(), " ") {
		t.Errorf("Makefile FUNCTIONS %v differ from the template's %v", fromMake, tpl.Functions())
	}

	raw, _ := os.ReadFile(filepath.Join(root, "template.yaml"))
	for _, forbidden := range []string{"ALLOW_PRIVATE_NETWORKS", "ALLOW_INSECURE_CALLBACKS"} {
		if strings.Contains(string(raw), forbidden) {
			t.Errorf("template.yaml mentions %s: it must never be on in a deployment", forbidden)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
