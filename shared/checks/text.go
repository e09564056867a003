package checks

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"secscan/shared/scans"
)

// catalogueJSON is the prose of every check written out in the catalogue
// files (all but the templated ones): one entry per code, ordered by code.
//
//go:embed catalogue.json
var catalogueJSON []byte

// text is one entry of catalogue.json.
type text struct {
	Code        scans.CheckCode `json:"check"`
	Rationale   string          `json:"rationale"`
	Description string          `json:"description"`
	Remediation string          `json:"remediation"`
	References  []string        `json:"references"`
}

var textOnce sync.Once

// loadText fills the prose of the registered checks from catalogue.json,
// once, on first use rather than at package init: a cold start that
// reports no finding and lists no check never parses it. A catalogue that
// does not match the declared checks is a programming error (TestCatalogue
// loads it).
func loadText() {
	textOnce.Do(func() {
		if err := fillText(registry, catalogueJSON); err != nil {
			panic("checks: catalogue.json: " + err.Error())
		}
	})
}

// fillText sets the prose of the checks of reg from raw, a JSON array of
// text. Every entry must be of a declared check without prose of its own,
// complete and there once; every check must end with prose.
func fillText(reg map[scans.CheckCode]*Check, raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var entries []text
	if err := dec.Decode(&entries); err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if err := fillEntry(reg, e); err != nil {
			errs = append(errs, err)
		}
	}
	for code, c := range reg {
		if c.Description == "" {
			errs = append(errs, fmt.Errorf("%s has no entry", code))
		}
	}
	return errors.Join(errs...)
}

// fillEntry sets the prose of e's check, unless e is of no declared check,
// the check has prose already, or e is incomplete.
func fillEntry(reg map[scans.CheckCode]*Check, e text) error {
	c, ok := reg[e.Code]
	switch {
	case !ok:
		return fmt.Errorf("%s is not a declared check", e.Code)
	case c.Description != "":
		return fmt.Errorf("%s has its prose twice (Go and JSON) or twice in JSON", e.Code)
	case e.Rationale == "" || e.Description == "" || e.Remediation == "" || len(e.References) == 0:
		return fmt.Errorf("%s: rationale, description, remediation and references are required", e.Code)
	}
	c.Rationale, c.Description, c.Remediation, c.References = e.Rationale, e.Description, e.Remediation, e.References
	return nil
}
