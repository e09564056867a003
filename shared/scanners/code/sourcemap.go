package code

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"

	"secscan/shared/scanners/internal/httpprobe"
)

const (
	// maxSources bounds the original sources read from one map.
	maxSources = 2000
	// maxSections bounds the sections of an index map.
	maxSections = 100
)

// announcedMap returns the source map a script names, or the conventional
// "<script>.map" beside it when it names none (httpprobe.AnnouncedMap). A
// map embedded as a data: URL is returned decoded instead, to be read
// without a request.
func announcedMap(resp *httpprobe.Response) (ref *url.URL, inline []byte) {
	ref, dataURL := httpprobe.AnnouncedMap(resp)
	if dataURL != "" {
		return nil, decodeDataURL(dataURL)
	}
	return ref, nil
}

// decodeDataURL returns the content of a data: URL (base64 or
// percent-encoded), nil when it cannot be decoded.
func decodeDataURL(raw string) []byte {
	meta, data, ok := strings.Cut(raw[len("data:"):], ",")
	if !ok {
		return nil
	}
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data, "="))
		}
		if err != nil {
			return nil
		}
		return b
	}
	s, err := url.PathUnescape(data)
	if err != nil {
		return nil
	}
	return []byte(s)
}

// rawMap is the part of a version 3 source map read here.
type rawMap struct {
	Version        int       `json:"version"`
	Sources        []string  `json:"sources"`
	SourcesContent []*string `json:"sourcesContent"`
	Mappings       *string   `json:"mappings"`
	Sections       []struct {
		Map *rawMap `json:"map"`
	} `json:"sections"`
}

// mapSource is one original source embedded in a map.
type mapSource struct {
	name, content string
}

// parseSourceMap returns the original sources a version 3 source map
// embeds (sourcesContent, including one level of index-map sections); ok
// is false when body is not a source map.
func parseSourceMap(body []byte) (sources []mapSource, ok bool) {
	m, ok := decodeSourceMap(body)
	if !ok {
		return nil, false
	}
	for _, sm := range m.withSections() {
		for i, content := range sm.SourcesContent {
			if len(sources) == maxSources {
				return sources, true
			}
			if content == nil || *content == "" {
				continue
			}
			sources = append(sources, mapSource{name: sm.sourceName(i), content: *content})
		}
	}
	return sources, true
}

// decodeSourceMap decodes body as a version 3 source map (after an
// anti-JSON-hijacking prefix); ok is false when it is not one.
func decodeSourceMap(body []byte) (m *rawMap, ok bool) {
	body = bytes.TrimSpace(body)
	body = bytes.TrimSpace(bytes.TrimPrefix(body, []byte(")]}'")))
	m = new(rawMap)
	if !bytes.HasPrefix(body, []byte("{")) || json.Unmarshal(body, m) != nil {
		return nil, false
	}
	if m.Version != 3 || (m.Mappings == nil && m.Sections == nil) {
		return nil, false
	}
	return m, true
}

// withSections is m followed by the maps of its first maxSections
// index-map sections.
func (m *rawMap) withSections() []*rawMap {
	maps := []*rawMap{m}
	for _, s := range m.Sections[:min(len(m.Sections), maxSections)] {
		if s.Map != nil {
			maps = append(maps, s.Map)
		}
	}
	return maps
}

// sourceName is the name of the i-th source ("" when the map has none).
func (m *rawMap) sourceName(i int) string {
	if i < len(m.Sources) {
		return m.Sources[i]
	}
	return ""
}
