// Package sariftest checks SARIF logs against the official SARIF 2.1.0
// schema (sarif-schema-2.1.0.json, from the OASIS TC's repository), for the
// tests of the findings package and of the secscan binary. Only tests
// import it: the CLI does not link the schema or its validator.
package sariftest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schema []byte

// schemaURL is the schema's id, which SARIF logs name in $schema.
const schemaURL = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Validate fails t unless raw is a SARIF log that matches the 2.1.0 schema.
func Validate(t testing.TB, raw []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.AssertFormat()
	if err := comp.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile(schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF does not match the 2.1.0 schema: %v", err)
	}
}

// Run is the part of a SARIF log's one run that the tests read.
type Run struct {
	Tool struct {
		Driver struct {
			Rules []struct {
				ID         string         `json:"id"`
				Help       map[string]any `json:"help"`
				Properties map[string]any `json:"properties"`
			} `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Results []struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		BaselineState       string            `json:"baselineState"`
		Locations           []struct {
			PhysicalLocation struct {
				ArtifactLocation struct{ URI string } `json:"artifactLocation"`
			} `json:"physicalLocation"`
		} `json:"locations"`
		Properties map[string]any `json:"properties"`
	} `json:"results"`
}

// OneRun validates raw (Validate) and returns its run, failing t unless
// there is exactly one.
func OneRun(t testing.TB, raw []byte) Run {
	t.Helper()
	Validate(t, raw)
	var log struct {
		Runs []Run `json:"runs"`
	}
	if err := json.Unmarshal(raw, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %d runs, want 1 (%v)", len(log.Runs), err)
	}
	return log.Runs[0]
}
