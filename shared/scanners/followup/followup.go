// Package followup owns the tools the planner runs on what earlier steps
// found, to go one layer deeper, always read-only:
//
//   - service_info reads the version of a cache answering without a
//     password (Redis INFO server, memcached version), so version_check can
//     match it;
//   - file_secrets runs the secret detectors over an exposed configuration
//     file (.env, .git/config) and reports each credential type on its own;
//   - listing_files classifies the entries of a directory listing (dumps,
//     archives, backups, keys) and reports those served, with their size and
//     type read from a bounded prefix;
//   - confirm_cve confirms a critical version match with a safe request
//     (the Apache 2.4.49/2.4.50 path traversal: read a file outside the
//     document root, write nothing).
//
// Every request is in scope and goes through the guarded dialer.
package followup

import (
	"encoding/json"
	"time"

	"secscan/shared/checks"
	"secscan/shared/scanners/internal/httpprobe"
)

// meta is what every follow-up tool declares.
type meta struct {
	name, description string
	schema            string
	cost              int
	timeout           time.Duration
	// emits are the checks the tool's findings can carry.
	emits []*checks.Check
}

func (m meta) Name() string                 { return m.name }
func (m meta) Description() string          { return m.description }
func (m meta) InputSchema() json.RawMessage { return json.RawMessage(m.schema) }
func (m meta) Cost() int                    { return m.cost }
func (m meta) Timeout() time.Duration       { return m.timeout }

// Checks implements checks.Emitter.
func (m meta) Checks() []*checks.Check { return m.emits }

// webTool is a follow-up that asks over HTTP(S), with the options every web
// tool shares.
type webTool struct {
	meta
	opts httpprobe.Options
}

const hostPortSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["host", "port"],
  "properties": {
    "host": {"type": "string", "description": "the scan's domain or one of its subdomains"},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535}
  }
}`

const urlSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["url"],
  "properties": {
    "url": {"type": "string", "maxLength": 2048, "description": "http(s) URL on the scan's domain or a subdomain"}
  }
}`
