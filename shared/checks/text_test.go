package checks

import (
	"strings"
	"testing"

	"secscan/shared/scans"
)

// TestFillText: catalogue.json must match the declared checks exactly.
func TestFillText(t *testing.T) {
	const entry = `{"check": "web.a", "rationale": "r", "description": "d", "remediation": "m", "references": ["https://a.test/"]}`
	cases := []struct {
		name, json, want string
	}{
		{"complete", `[` + entry + `]`, ""},
		{"not declared", `[` + entry + `, {"check": "web.c", "rationale": "r", "description": "d", "remediation": "m", "references": ["https://a.test/"]}]`, "web.c is not a declared check"},
		{"twice", `[` + entry + `, ` + entry + `]`, "web.a has its prose twice"},
		{"incomplete", `[{"check": "web.a", "rationale": "r", "description": "d", "references": ["https://a.test/"]}]`, "web.a: rationale, description, remediation and references are required"},
		{"missing", `[]`, "web.a has no entry"},
		{"unknown field", `[{"check": "web.a", "severity": "high"}]`, "unknown field"},
	}
	for _, tc := range cases {
		reg := map[scans.CheckCode]*Check{"web.a": {Code: "web.a"}, "web.b": {Code: "web.b", Description: "from a template"}}
		err := fillText(reg, []byte(tc.json))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
