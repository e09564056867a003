package cli

import "encoding/json"

// jsonUnmarshal is json.Unmarshal, named for the one place that ignores its
// error on purpose (describing an unverified body is best effort).
func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }
