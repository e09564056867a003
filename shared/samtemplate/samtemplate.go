// Package samtemplate reads what the local stack and the tests need from
// template.yaml: the HTTP routes of each function and the DynamoDB tables. The
// template is the single source of truth, so local routes and tables cannot
// drift from what is deployed. It understands the long-form intrinsics only
// (the template uses no short `!Ref` tags).
package samtemplate

import (
	"fmt"
	"os"
	"sort"
	"strings"

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
func (r Route) Pattern() string { return r.Method + " " + r.Path }

// Template is the parsed part of template.yaml.
type Template struct {
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
		var def struct {
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
		if err := remarshal(res.Properties, &def); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		in := dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest}
		for _, a := range def.AttributeDefinitions {
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
				AttributeName: &a.AttributeName, AttributeType: types.ScalarAttributeType(a.AttributeType)})
		}
		for _, k := range def.KeySchema {
			in.KeySchema = append(in.KeySchema, k.element())
		}
		for _, g := range def.GlobalSecondaryIndexes {
			idx := types.GlobalSecondaryIndex{IndexName: &g.IndexName, Projection: &types.Projection{ProjectionType: types.ProjectionType(g.Projection.ProjectionType)}}
			for _, k := range g.KeySchema {
				idx.KeySchema = append(idx.KeySchema, k.element())
			}
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, idx)
		}
		if len(in.KeySchema) == 0 {
			return nil, fmt.Errorf("table %s has no KeySchema", name)
		}
		td := TableDef{Create: in}
		if def.TimeToLiveSpecification.Enabled {
			td.TTLAttribute = def.TimeToLiveSpecification.AttributeName
		}
		out[name] = td
	}
	return out, nil
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
