// Package sariftest checks SARIF logs against the official SARIF 2.1.0
// schema (sarif-schema-2.1.0.json, from the OASIS TC's repository), for the
// tests of the findings package and of the secscan binary. Only tests
// import it: the CLI does not link the schema or its validator.
package sariftest

import (
	"bytes"
	_ "embed"
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
