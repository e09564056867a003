// Package samtemplate reads what the local stack and the tests need from
// template.yaml: the HTTP routes of each function and the DynamoDB tables. The
// template is the single source of truth, so local routes and tables cannot
// drift from what is deployed. It understands the long-form intrinsics only
// (the template uses no short `!Ref` tags).
package samtemplate

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"gopkg.in/yaml.v3"
)

// Route is one HTTP API event of a function.
type Route struct {
	Function string // logical id, e.g. ListTargetsFunction
	Method   string // GET, POST, ...
	Path     string // /api/targets/{id}
}

// Pattern is the route as a net/http ServeMux pattern ("GET /api/targets/{id}").
// "/" matches only itself, as on API Gateway (a ServeMux "/" matches every path).
func (r Route) Pattern() string {
	if r.Path == "/" {
		return r.Method + " /{$}"
	}
	return r.Method + " " + r.Path
}

// Template is the parsed part of template.yaml.
type Template struct {
	Globals struct {
		Function map[string]any `yaml:"Function"`
	} `yaml:"Globals"`
	Resources map[string]resource `yaml:"Resources"`
}

type resource struct {
	Type       string         `yaml:"Type"`
	Properties map[string]any `yaml:"Properties"`
}

// Load parses the template at path.
func Load(path string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	var t Template
	if err := yaml.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &t, nil
}

// Routes lists the HttpApi events of every serverless function, sorted.
func (t *Template) Routes() ([]Route, error) {
	var routes []Route
	for name, res := range t.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		events, _ := res.Properties["Events"].(map[string]any)
		for evName, ev := range events {
			e, _ := ev.(map[string]any)
			if e["Type"] != "HttpApi" {
				continue
			}
			props, _ := e["Properties"].(map[string]any)
			method, _ := props["Method"].(string)
			path, _ := props["Path"].(string)
			if method == "" || path == "" {
				return nil, fmt.Errorf("%s event %s: HttpApi event needs Method and Path", name, evName)
			}
			routes = append(routes, Route{Function: name, Method: strings.ToUpper(method), Path: path})
		}
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].Pattern() < routes[j].Pattern() })
	return routes, nil
}

// Tables returns a CreateTableInput for each AWS::DynamoDB::Table, keyed by
// logical id, with TableName left for the caller to set. TTL is returned
// separately since it is its own API call.
func (t *Template) Tables() (map[string]TableDef, error) {
	out := map[string]TableDef{}
	for name, res := range t.Resources {
		if res.Type != "AWS::DynamoDB::Table" {
			continue
		}
		td, err := tableDef(res.Properties)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		if len(td.Create.KeySchema) == 0 {
			return nil, fmt.Errorf("table %s has no KeySchema", name)
		}
		out[name] = td
	}
	return out, nil
}

// tableProperties are the properties of an AWS::DynamoDB::Table that the
// local stack creates it with.
type tableProperties struct {
	AttributeDefinitions []struct {
		AttributeName string `yaml:"AttributeName"`
		AttributeType string `yaml:"AttributeType"`
	} `yaml:"AttributeDefinitions"`
	KeySchema              []keyElement `yaml:"KeySchema"`
	GlobalSecondaryIndexes []struct {
		IndexName  string       `yaml:"IndexName"`
		KeySchema  []keyElement `yaml:"KeySchema"`
		Projection struct {
			ProjectionType string `yaml:"ProjectionType"`
		} `yaml:"Projection"`
	} `yaml:"GlobalSecondaryIndexes"`
	TimeToLiveSpecification struct {
		AttributeName string `yaml:"AttributeName"`
		Enabled       bool   `yaml:"Enabled"`
	} `yaml:"TimeToLiveSpecification"`
}

// tableDef is the definition of the table with the properties props.
func tableDef(props map[string]any) (TableDef, error) {
	var def tableProperties
	if err := remarshal(props, &def); err != nil {
		return TableDef{}, err
	}
	in := dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest, KeySchema: keySchema(def.KeySchema)}
	for _, a := range def.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: &a.AttributeName, AttributeType: types.ScalarAttributeType(a.AttributeType)})
	}
	for _, g := range def.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: &g.IndexName,
			KeySchema: keySchema(g.KeySchema), Projection: &types.Projection{ProjectionType: types.ProjectionType(g.Projection.ProjectionType)}})
	}
	td := TableDef{Create: in}
	if def.TimeToLiveSpecification.Enabled {
		td.TTLAttribute = def.TimeToLiveSpecification.AttributeName
	}
	return td, nil
}

// keySchema is the key schema of a table or index.
func keySchema(keys []keyElement) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for _, k := range keys {
		out = append(out, k.element())
	}
	return out
}

// TableDef is a table's definition.
type TableDef struct {
	Create       dynamodb.CreateTableInput
	TTLAttribute string // empty when TTL is off
}

type keyElement struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

func (k keyElement) element() types.KeySchemaElement {
	name := k.AttributeName
	return types.KeySchemaElement{AttributeName: &name, KeyType: types.KeyType(k.KeyType)}
}

// remarshal converts a decoded YAML value into a typed struct.
func remarshal(in any, out any) error {
	raw, err := yaml.Marshal(in)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(raw, out)
}

// StateMachine is an AWS::Serverless::StateMachine's definition wiring.
type StateMachine struct {
	DefinitionURI string // relative to the template's folder
	// Substitutions maps each ${Name} placeholder of the definition to the
	// logical id of the function whose ARN (Fn::GetAtt [Id, Arn]) it takes.
	Substitutions map[string]string
}

// StateMachine returns the state machine logicalID. Every substitution must
// be a function's ARN: that is all the local stack knows how to provide.
func (t *Template) StateMachine(logicalID string) (StateMachine, error) {
	res, ok := t.Resources[logicalID]
	if !ok || res.Type != "AWS::Serverless::StateMachine" {
		return StateMachine{}, fmt.Errorf("template has no state machine %s", logicalID)
	}
	sm := StateMachine{Substitutions: map[string]string{}}
	sm.DefinitionURI, _ = res.Properties["DefinitionUri"].(string)
	if sm.DefinitionURI == "" {
		return StateMachine{}, fmt.Errorf("%s: DefinitionUri must be a path", logicalID)
	}
	subs, _ := res.Properties["DefinitionSubstitutions"].(map[string]any)
	for name, v := range subs {
		fn, err := t.functionArn(v)
		if err != nil {
			return StateMachine{}, fmt.Errorf("%s: substitution %s %w", logicalID, name, err)
		}
		sm.Substitutions[name] = fn
	}
	return sm, nil
}

// functionArn is the logical id of the function whose ARN a substitution's
// value takes (Fn::GetAtt [Id, Arn]); the error completes "substitution X".
func (t *Template) functionArn(v any) (string, error) {
	m, _ := v.(map[string]any)
	att, _ := m["Fn::GetAtt"].([]any)
	if len(att) != 2 || att[1] != "Arn" {
		return "", errors.New("must be Fn::GetAtt [<Function>, Arn]")
	}
	fn, _ := att[0].(string)
	if r, ok := t.Resources[fn]; !ok || r.Type != "AWS::Serverless::Function" {
		return "", fmt.Errorf("names %q, which is not a function", fn)
	}
	return fn, nil
}

// dynamoActions are the DynamoDB actions among actions.
func dynamoActions(actions []string) []string {
	var out []string
	for _, a := range actions {
		if strings.HasPrefix(a, "dynamodb:") {
			out = append(out, a)
		}
	}
	return out
}

// Functions lists the logical ids of every serverless function, sorted.
func (t *Template) Functions() []string {
	var out []string
	for name, res := range t.Resources {
		if res.Type == "AWS::Serverless::Function" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// FunctionTimeout is a function's Timeout, or the Globals' when it sets none
// (Lambda's default of 3 s when neither does).
func (t *Template) FunctionTimeout(logicalID string) time.Duration {
	for _, props := range []map[string]any{t.Resources[logicalID].Properties, t.Globals.Function} {
		if n, ok := props["Timeout"].(int); ok {
			return time.Duration(n) * time.Second
		}
	}
	return 3 * time.Second
}

// Statement is one Allow statement of a function's policy with DynamoDB
// actions: its actions and the fine-grained conditions it carries.
type Statement struct {
	Actions     []string // dynamodb:* actions only
	LeadingKeys []string // ForAllValues:StringLike dynamodb:LeadingKeys; nil: any partition
	Attributes  []string // ForAllValues:StringEquals dynamodb:Attributes; nil: any attribute
}

// TableStatements lists the statements of function logicalID's inline
// policies that grant DynamoDB actions (policy templates and intrinsics are
// skipped: they grant no table access in this template).
func (t *Template) TableStatements(logicalID string) ([]Statement, error) {
	var props struct {
		Policies []struct {
			Statement []struct {
				Effect    string   `yaml:"Effect"`
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
	res, ok := t.Resources[logicalID]
	if !ok {
		return nil, fmt.Errorf("template has no %s", logicalID)
	}
	// Policies mixes statements with policy templates (maps of another
	// shape) and Fn::If: decode each entry on its own and keep statements.
	raw, _ := res.Properties["Policies"].([]any)
	var out []Statement
	for _, p := range raw {
		one := props
		one.Policies = nil
		if err := remarshal(map[string]any{"Policies": []any{p}}, &one); err != nil {
			continue // not a statement list
		}
		for _, pol := range one.Policies {
			for _, st := range pol.Statement {
				if dynamo := dynamoActions(st.Action); len(dynamo) > 0 && st.Effect == "Allow" {
					out = append(out, Statement{Actions: dynamo, LeadingKeys: st.Condition.Like.LeadingKeys, Attributes: st.Condition.Equals.Attributes})
				}
			}
		}
	}
	return out, nil
}
