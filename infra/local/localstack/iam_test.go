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
// each call must be allowed by that function's policy, action, partition
// key (dynamodb:LeadingKeys) and, where a statement lists them, the attribute
// names the write touches (dynamodb:Attributes: those of the update and
// condition expressions, the key's, a put item's) alike. A full run of the package also fails on
// a policy action that no flow of its function used: permissions nobody
// needs are not granted.

// dynamoCalls are the calls seen so far: function -> action -> calls.
var dynamoCalls = struct {
	sync.Mutex
	by map[string]map[string][]call
}{by: map[string]map[string][]call{}}

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
							dynamoCalls.by[fn] = map[string][]call{}
						}
						dynamoCalls.by[fn][c.action] = append(dynamoCalls.by[fn][c.action], c)
					}
					dynamoCalls.Unlock()
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

// call is one IAM action of an operation: the partition it touches and the
// attribute names it names (dynamodb:Attributes).
type call struct {
	action, pk string
	attrs      []string
}

// expressionWords are the words of expressions that are not attribute names.
var expressionWords = map[string]bool{
	"SET": true, "REMOVE": true, "ADD": true, "DELETE": true, "AND": true, "OR": true, "NOT": true, "IN": true,
	"BETWEEN": true, "if_not_exists": true, "list_append": true, "attribute_exists": true,
	"attribute_not_exists": true, "attribute_type": true, "begins_with": true, "contains": true, "size": true,
}

var expressionToken = regexp.MustCompile(`[:#]?[A-Za-z_][A-Za-z0-9_]*`)

// attributesOf names the attributes of a write: its key's (or item's), and
// those its expressions name (placeholders resolved).
func attributesOf(item map[string]types.AttributeValue, names map[string]string, exprs ...*string) []string {
	var out []string
	for k := range item {
		out = append(out, k)
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, tok := range expressionToken.FindAllString(*e, -1) {
			switch {
			case strings.HasPrefix(tok, ":"), expressionWords[tok]:
			case strings.HasPrefix(tok, "#"):
				out = append(out, names[tok])
			default:
				out = append(out, tok)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

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
		return []call{{"dynamodb:GetItem", pk(in.Key), nil}}
	case *dynamodb.PutItemInput:
		return []call{{"dynamodb:PutItem", pk(in.Item), attributesOf(in.Item, in.ExpressionAttributeNames, in.ConditionExpression)}}
	case *dynamodb.UpdateItemInput:
		return []call{{"dynamodb:UpdateItem", pk(in.Key), attributesOf(in.Key, in.ExpressionAttributeNames, in.UpdateExpression, in.ConditionExpression)}}
	case *dynamodb.DeleteItemInput:
		return []call{{"dynamodb:DeleteItem", pk(in.Key), attributesOf(in.Key, in.ExpressionAttributeNames, in.ConditionExpression)}}
	case *dynamodb.QueryInput:
		m := regexp.MustCompile(`\bpk = (:\w+)`).FindStringSubmatch(*in.KeyConditionExpression)
		value := ""
		if m != nil {
			value = pk(map[string]types.AttributeValue{"pk": in.ExpressionAttributeValues[m[1]]})
		}
		return []call{{"dynamodb:Query", value, nil}}
	case *dynamodb.TransactWriteItemsInput:
		var out []call
		for _, it := range in.TransactItems {
			switch {
			case it.ConditionCheck != nil:
				c := it.ConditionCheck
				out = append(out, call{"dynamodb:ConditionCheckItem", pk(c.Key), attributesOf(c.Key, c.ExpressionAttributeNames, c.ConditionExpression)})
			case it.Put != nil:
				p := it.Put
				out = append(out, call{"dynamodb:PutItem", pk(p.Item), attributesOf(p.Item, p.ExpressionAttributeNames, p.ConditionExpression)})
			case it.Update != nil:
				u := it.Update
				out = append(out, call{"dynamodb:UpdateItem", pk(u.Key), attributesOf(u.Key, u.ExpressionAttributeNames, u.UpdateExpression, u.ConditionExpression)})
			case it.Delete != nil:
				d := it.Delete
				out = append(out, call{"dynamodb:DeleteItem", pk(d.Key), attributesOf(d.Key, d.ExpressionAttributeNames, d.ConditionExpression)})
			}
		}
		return out
	}
	return []call{{fmt.Sprintf("unknown operation %T", params), "", nil}}
}

// statement is one Allow statement of a function's policy on the table.
type statement struct {
	actions     []string
	leadingKeys []string // ForAllValues:StringLike patterns; nil means any partition
	attributes  []string // ForAllValues:StringEquals dynamodb:Attributes; nil means any
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
					Equals struct {
						Attributes []string `yaml:"dynamodb:Attributes"`
					} `yaml:"ForAllValues:StringEquals"`
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
					out[name] = append(out[name], statement{dynamo, st.Condition.Like.LeadingKeys, st.Condition.Equals.Attributes})
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

func (st statement) allows(c call) bool {
	if !slices.Contains(st.actions, c.action) {
		return false
	}
	if st.attributes != nil {
		// A read names no attributes here (it reads whole items): a
		// statement with an attribute list grants writes only.
		if c.attrs == nil {
			return false
		}
		for _, a := range c.attrs {
			if !slices.Contains(st.attributes, a) {
				return false
			}
		}
	}
	if st.leadingKeys == nil {
		return true
	}
	return slices.ContainsFunc(st.leadingKeys, func(p string) bool { return likeMatch(p, c.pk) })
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
		for action, calls := range actions {
			for _, c := range calls {
				if !slices.ContainsFunc(statements, func(st statement) bool { return st.allows(c) }) {
					problems = append(problems, fmt.Sprintf("%s: %s on partition %q (attributes %v) is not allowed by its policy", fn, action, c.pk, c.attrs))
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
