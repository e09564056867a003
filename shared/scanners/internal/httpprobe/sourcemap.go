package httpprobe

import (
	"bytes"
	"net/url"
	"strings"

	"secscan/shared/lazyre"
)

var sourceMappingURL = lazyre.New(`//[#@][ \t]*sourceMappingURL[ \t]*=[ \t]*(\S+)`)

// AnnouncedMap returns the source map a script response announces (its
// SourceMap or X-SourceMap header, else the last sourceMappingURL comment),
// resolved against the script's URL, or the conventional "<script>.map"
// beside the script when it names none. A map embedded as a data: URL has
// no URL: dataURL is the reference itself then. ref is nil too when the
// reference is no valid URL.
func AnnouncedMap(resp *Response) (ref *url.URL, dataURL string) {
	raw := mapReference(resp)
	if strings.HasPrefix(strings.ToLower(raw), "data:") {
		return nil, raw
	}
	if raw == "" {
		u := *resp.URL
		u.RawQuery, u.RawPath, u.Fragment = "", "", ""
		u.Path += ".map"
		return &u, ""
	}
	u, err := resp.URL.Parse(raw)
	if err != nil {
		return nil, ""
	}
	u.Fragment = ""
	return u, ""
}

// mapReference is the source map reference a script names: its SourceMap
// (or X-SourceMap) header, else its last sourceMappingURL comment; "" when
// none.
func mapReference(resp *Response) string {
	for _, h := range []string{"SourceMap", "X-SourceMap"} {
		if v := strings.TrimSpace(resp.Header.Get(h)); v != "" {
			return v
		}
	}
	// The comment ends the file: look at the last one only.
	i := bytes.LastIndex(resp.Body, []byte("sourceMappingURL"))
	if i < 0 {
		return ""
	}
	if m := sourceMappingURL.FindSubmatch(resp.Body[max(0, i-8):]); m != nil {
		return string(m[1])
	}
	return ""
}
