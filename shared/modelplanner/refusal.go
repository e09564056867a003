package modelplanner

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"secscan/shared/domainname"
	"secscan/shared/planner"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// A tool call a model proposes is untrusted input (ARCHITECTURE "Model
// output is untrusted input"). refusal checks it before anything runs:
// an unknown tool, an input that is not an object or does not match the
// tool's schema, a host, URL or address outside the scan's scope, or a call
// that already ran is refused, and the agent records it as a refused step
// (CONTRACT "Scans"). A refused call never reaches a tool, so nothing is
// dialled; the guarded dialer would refuse a non-public address anyway.

// maxSchemaDepth bounds how deep the input is checked against nested
// schemas; the tools' inputs are one or two levels deep.
const maxSchemaDepth = 4

// refusal says why use is refused ("" when it may run).
func refusal(reg *tools.Registry, s planner.State, use ToolUse) string {
	tool, ok := reg.Get(use.Name)
	if !ok {
		return fmt.Sprintf("%s is not a tool of this service", line(use.Name, 60))
	}
	var in map[string]any
	if json.Unmarshal(use.Input, &in) != nil || in == nil {
		return "the input is not a JSON object"
	}
	return cmp.Or(schemaRefusal(tool.InputSchema(), in), outOfScope(s.Scan.Target, in), thirdParty(tool, s, in), tierRefusal(tool, s, use), ranBefore(s.Steps, use))
}

// thirdParty applies the tools' own third-party rule (tools.Access.Check
// of what the call does, tools.Env.CallReach) to the host a field names,
// with the aliases the surface knows: what a name aliased outside the
// scope may not get is refused here rather than charged and refused by
// the tool (which reads the CNAME chain itself, so an alias the surface
// does not know yet is still refused there).
func thirdParty(tool tools.Tool, s planner.State, in map[string]any) string {
	env := tools.Env{Domain: s.Scan.Target, Surface: s.Surface}
	least := tools.ReachOf(tool)
	for _, field := range []string{"host", "url", "base_url"} {
		v, _ := in[field].(string)
		host, reach := v, least
		if u, err := url.Parse(v); field != "host" && err == nil {
			host, reach = u.Hostname(), env.CallReach(least, u)
		}
		a, err := env.KnownAccess(host)
		var refused *tools.InputError
		if v != "" && err == nil && errors.As(a.Check(reach), &refused) {
			return refused.Reason
		}
	}
	return ""
}

// schemaRefusal says where the input in breaks the tool's input schema
// ("" when it does not, or the schema cannot be read).
func schemaRefusal(raw json.RawMessage, in map[string]any) string {
	var schema jsonSchema
	if json.Unmarshal(raw, &schema) != nil {
		return ""
	}
	return schema.check("input", in, 0)
}

// ranBefore names the step that already made the call use ("" when none).
func ranBefore(steps []scans.Step, use ToolUse) string {
	if i := stepOfCall(steps, use.Name, use.Input); i >= 0 {
		return fmt.Sprintf("the same call already ran as step %d", steps[i].Seq)
	}
	return ""
}

// stepOfCall is the index of the step that made the call of tool with
// input (the same call key), -1 when none did.
func stepOfCall(steps []scans.Step, tool string, input json.RawMessage) int {
	key := planner.CallKey(tool, input)
	return slices.IndexFunc(steps, func(st scans.Step) bool { return planner.CallKey(st.Tool, st.Input) == key })
}

// outOfScope checks the fields that name where a tool connects: host, url
// and base_url.
func outOfScope(domain string, in map[string]any) string {
	for _, field := range []string{"host", "url", "base_url"} {
		v, ok := in[field].(string)
		if !ok || v == "" {
			continue
		}
		host, ok := fieldHost(field, v)
		if !ok {
			return fmt.Sprintf("%s is not an http(s) URL", field)
		}
		if why := hostOutOfScope(field, host, domain); why != "" {
			return why
		}
	}
	return ""
}

// fieldHost is the host a field names: the host field itself, the host of
// a url field's http(s) URL; not ok for a URL without one.
func fieldHost(field, v string) (string, bool) {
	if field == "host" {
		return v, true
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	return u.Hostname(), true
}

// hostOutOfScope says why the host a field names is out of the scan's
// scope: an address, or a name outside domain ("" when in scope).
func hostOutOfScope(field, host, domain string) string {
	if addr, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return fmt.Sprintf("%s names the address %s: only %s and its subdomains are in scope, never an address", field, addr, domain)
	}
	name, err := domainname.Normalize(host)
	if err != nil || !domainname.InScope(name, domain) {
		return fmt.Sprintf("%s %s is outside the scan's domain %s", field, line(host, 80), domain)
	}
	return ""
}

// jsonSchema is the part of JSON Schema the tools' input schemas use.
type jsonSchema struct {
	Type                 string                `json:"type"`
	Properties           map[string]jsonSchema `json:"properties"`
	Required             []string              `json:"required"`
	AdditionalProperties *bool                 `json:"additionalProperties"`
	Enum                 []any                 `json:"enum"`
	Minimum              *float64              `json:"minimum"`
	Maximum              *float64              `json:"maximum"`
	MaxLength            *int                  `json:"maxLength"`
	MinItems             *int                  `json:"minItems"`
	MaxItems             *int                  `json:"maxItems"`
	Items                *jsonSchema           `json:"items"`
}

// check says where v breaks the schema ("" when it does not).
func (s jsonSchema) check(path string, v any, depth int) string {
	if depth > maxSchemaDepth {
		return path + " is nested too deep"
	}
	if why := s.checkType(path, v); why != "" {
		return why
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		return path + " is not one of the allowed values"
	}
	switch x := v.(type) {
	case map[string]any:
		return s.checkObject(path, x, depth)
	case []any:
		return s.checkArray(path, x, depth)
	case float64:
		return s.checkRange(path, x)
	case string:
		return s.checkLength(path, x)
	}
	return ""
}

// checkRange says whether the number x lies outside the schema's bounds.
func (s jsonSchema) checkRange(path string, x float64) string {
	if outside(x, s.Minimum, s.Maximum) {
		return path + " is out of range"
	}
	return ""
}

// outside reports whether x lies below lo or above hi (nil: no bound).
func outside[T cmp.Ordered](x T, lo, hi *T) bool {
	return (lo != nil && x < *lo) || (hi != nil && x > *hi)
}

// checkLength says whether the string x is longer than the schema allows.
func (s jsonSchema) checkLength(path string, x string) string {
	if s.MaxLength != nil && len([]rune(x)) > *s.MaxLength {
		return path + " is too long"
	}
	return ""
}

// checkType says whether v is not of the schema's type (any type when the
// schema names none or one not listed in jsonTypes).
func (s jsonSchema) checkType(path string, v any) string {
	if is, known := jsonTypes[s.Type]; known && !is(v) {
		return fmt.Sprintf("%s must be %s %s", path, article(s.Type), s.Type)
	}
	return ""
}

// jsonTypes tell whether a decoded JSON value is of a JSON Schema type.
var jsonTypes = map[string]func(any) bool{
	"object":  func(v any) bool { _, ok := v.(map[string]any); return ok },
	"array":   func(v any) bool { _, ok := v.([]any); return ok },
	"string":  func(v any) bool { _, ok := v.(string); return ok },
	"boolean": func(v any) bool { _, ok := v.(bool); return ok },
	"number":  func(v any) bool { _, ok := v.(float64); return ok },
	"integer": func(v any) bool { f, ok := v.(float64); return ok && f == float64(int64(f)) },
}

func (s jsonSchema) checkObject(path string, m map[string]any, depth int) string {
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			return fmt.Sprintf("%s lacks the required field %s", path, r)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if why := s.checkField(path, k, m[k], depth); why != "" {
			return why
		}
	}
	return ""
}

// checkField says where the field k of an object at path breaks the
// schema: its own schema's check, or unknown where none are allowed.
func (s jsonSchema) checkField(path, k string, v any, depth int) string {
	if sub, known := s.Properties[k]; known {
		return sub.check(path+"."+k, v, depth+1)
	}
	if s.AdditionalProperties != nil && !*s.AdditionalProperties {
		return fmt.Sprintf("%s has an unknown field %s", path, line(k, 40))
	}
	return ""
}

func (s jsonSchema) checkArray(path string, a []any, depth int) string {
	if outside(len(a), s.MinItems, s.MaxItems) {
		return path + " has too few or too many items"
	}
	if s.Items == nil {
		return ""
	}
	for i, v := range a {
		if why := s.Items.check(fmt.Sprintf("%s[%d]", path, i), v, depth+1); why != "" {
			return why
		}
	}
	return ""
}

func article(typ string) string {
	if typ == "integer" || typ == "object" || typ == "array" {
		return "an"
	}
	return "a"
}
