package localstack_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"gopkg.in/yaml.v3"

	"secscan/infra/local/dynamotest"
	"secscan/infra/local/sfnlocal"
	"secscan/shared/app"
)

// The template's IAM policies are checked against what the functions
// really do: every DynamoDB call the stacks of this package make is
// attributed to the function that made it (the API handler's logical id, or
// the Lambda the state machine invoked), and after all tests ran (TestMain)
// each call must be allowed by that function's policy, action and partition
// key (dynamodb:LeadingKeys) alike. A full run of the package also fails on
// a policy action that no flow of its function used: permissions nobody
// needs are not granted.

// dynamoCalls are the calls seen so far: function -> action -> partition keys.
var dynamoCalls = struct {
	sync.Mutex
	by map[string]map[string][]string
}{by: map[string]map[string][]string{}}

type functionKey struct{}

// asFunction runs h as the API function name, for the DynamoDB recorder.
func asFunction(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), functionKey{}, name)))
	})
}

func functionOf(ctx context.Context) string {
	if name, ok := ctx.Value(functionKey{}).(string); ok {
		return name
	}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		return sfnlocal.FunctionNameOf(lc.InvokedFunctionArn)
	}
	return "" // the test itself (fixtures, bootstrap)
}

// recordCalls is a DynamoDB client option that records every call.
func recordCalls(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("RecordCalls",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if fn := functionOf(ctx); fn != "" {
					dynamoCalls.Lock()
					for _, c := range callsOf(in.Parameters) {
						if dynamoCalls.by[fn] == nil {
							dynamoCalls.by[fn] = map[string][]string{}
						}
						dynamoCalls.by[fn][c.action] = append(dynamoCalls.by[fn][c.action], c.pk)
					}
					dynamoCalls.Unlock()
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

type call struct{ action, pk string }

// callsOf names the IAM actions an operation needs, with the partition key
// each touches. A transaction needs the action of each of its items.
func callsOf(params any) []call {
	pk := func(item map[string]types.AttributeValue) string {
		if s, ok := item["pk"].(*types.AttributeValueMemberS); ok {
			return s.Value
		}
		return ""
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		return []call{{"dynamodb:GetItem", pk(in.Key)}}
	case *dynamodb.PutItemInput:
		return []call{{"dynamodb:PutItem", pk(in.Item)}}
	case *dynamodb.UpdateItemInput:
		return []call{{"dynamodb:UpdateItem", pk(in.Key)}}
	case *dynamodb.DeleteItemInput:
		return []call{{"dynamodb:DeleteItem", pk(in.Key)}}
	case *dynamodb.QueryInput:
		m := regexp.MustCompile(`\bpk = (:\w+)`).FindStringSubmatch(*in.KeyConditionExpression)
		value := ""
		if m != nil {
			value = pk(map[string]types.AttributeValue{"pk": in.ExpressionAttributeValues[m[1]]})
		}
		return []call{{"dynamodb:Query", value}}
	case *dynamodb.TransactWriteItemsInput:
		var out []call
		for _, it := range in.TransactItems {
			switch {
			case it.ConditionCheck != nil:
				out = append(out, call{"dynamodb:ConditionCheckItem", pk(it.ConditionCheck.Key)})
			case it.Put != nil:
				out = append(out, call{"dynamodb:PutItem", pk(it.Put.Item)})
			case it.Update != nil:
				out = append(out, call{"dynamodb:UpdateItem", pk(it.Update.Key)})
			case it.Delete != nil:
				out = append(out, call{"dynamodb:DeleteItem", pk(it.Delete.Key)})
			}
		}
		return out
	}
	return []call{{fmt.Sprintf("unknown operation %T", params), ""}}
}

// statement is one Allow statement of a function's policy on the table.
type statement struct {
	actions     []string
	leadingKeys []string // ForAllValues:StringLike patterns; nil means any partition
}

// tablePolicies reads each function's DynamoDB statements from template.yaml.
func tablePolicies() (map[string][]statement, error) {
	root, err := dynamotest.RepoRoot()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string    `yaml:"Type"`
			Properties yaml.Node `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(raw, &tpl); err != nil {
		return nil, err
	}
	type functionProperties struct {
		Policies []struct {
			Statement []struct {
				Action    []string `yaml:"Action"`
				Condition struct {
					Like struct {
						LeadingKeys []string `yaml:"dynamodb:LeadingKeys"`
					} `yaml:"ForAllValues:StringLike"`
				} `yaml:"Condition"`
			} `yaml:"Statement"`
		} `yaml:"Policies"`
	}
	out := map[string][]statement{}
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		var props functionProperties
		if err := res.Properties.Decode(&props); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = []statement{}
		for _, p := range props.Policies {
			for _, st := range p.Statement {
				var dynamo []string
				for _, a := range st.Action {
					if strings.HasPrefix(a, "dynamodb:") {
						dynamo = append(dynamo, a)
					}
				}
				if len(dynamo) > 0 {
					out[name] = append(out[name], statement{dynamo, st.Condition.Like.LeadingKeys})
				}
			}
		}
	}
	return out, nil
}

// likeMatch is IAM's StringLike for the patterns used here (* and ?).
func likeMatch(pattern, s string) bool {
	ok, _ := filepath.Match(strings.ReplaceAll(pattern, "/", "\x00"), strings.ReplaceAll(s, "/", "\x00"))
	return ok
}

func (st statement) allows(action, pk string) bool {
	if !slices.Contains(st.actions, action) {
		return false
	}
	if st.leadingKeys == nil {
		return true
	}
	return slices.ContainsFunc(st.leadingKeys, func(p string) bool { return likeMatch(p, pk) })
}

// authentication is what every authenticated function may need whatever
// its flows did: an API token is read (GetItem), the rate limit and a
// token's last use are updated (UpdateItem), and a JWT's first sign-in,
// which can land on any endpoint, creates the user (PutItem in a transaction).
var authentication = []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem"}

// needs are the grants the flows cannot show used, with why.
var needs = func() map[string][]string {
	n := map[string][]string{
		// Releasing the Idempotency-Key of a scan whose execution could not start.
		"CreateScanFunction": {"dynamodb:DeleteItem"},
	}
	for fn := range app.Endpoints {
		if fn == "HealthFunction" { // the one public endpoint
			continue
		}
		n[fn] = append(n[fn], authentication...)
	}
	return n
}()

// checkPolicies compares the recorded calls with the template's policies.
func checkPolicies(full bool) []string {
	policies, err := tablePolicies()
	if err != nil {
		return []string{err.Error()}
	}
	dynamoCalls.Lock()
	defer dynamoCalls.Unlock()
	var problems []string
	for fn, actions := range dynamoCalls.by {
		statements, ok := policies[fn]
		if !ok {
			problems = append(problems, fmt.Sprintf("calls attributed to %s, which template.yaml does not define", fn))
			continue
		}
		for action, pks := range actions {
			for _, pk := range pks {
				if !slices.ContainsFunc(statements, func(st statement) bool { return st.allows(action, pk) }) {
					problems = append(problems, fmt.Sprintf("%s: %s on partition %q is not allowed by its policy", fn, action, pk))
					break
				}
			}
		}
	}
	if full {
		for fn, statements := range policies {
			for _, st := range statements {
				for _, action := range st.actions {
					if _, used := dynamoCalls.by[fn][action]; !used && !slices.Contains(needs[fn], action) {
						problems = append(problems, fmt.Sprintf("%s: its policy grants %s, which no flow of it used", fn, action))
					}
				}
			}
		}
	}
	sort.Strings(problems)
	return slices.Compact(problems)
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	// Only a run of every test exercises every function: a -run subset
	// checks that its calls are allowed, not that every grant was used.
	full := flag.Lookup("test.run").Value.String() == "" && !testing.Short()
	if code == 0 {
		if problems := checkPolicies(full); len(problems) > 0 {
			fmt.Fprintln(os.Stderr, "template.yaml policies disagree with the functions' DynamoDB calls:")
			for _, p := range problems {
				fmt.Fprintln(os.Stderr, "  "+p)
			}
			code = 1
		}
	}
	os.Exit(code)
}
