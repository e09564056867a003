package exposure

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
)

const (
	// maxScripts bounds the scripts (and so the maps) fetched per call.
	maxScripts = 5
	// maxMapEvidence bounds the maps listed in the evidence.
	maxMapEvidence = 3
)

var (
	mapVersion     = lazyre.New(`"version"\s*:\s*3\b`)
	mapMappings    = lazyre.New(`"(?:mappings|sources|sections)"\s*:`)
	mapFirstSource = lazyre.New(`"sources"\s*:\s*\[\s*"([^"]{1,120})"`)
)

// probeSourceMaps fetches the home page's same-host scripts, finds the
// source maps they announce (sourceMappingURL comment, SourceMap header,
// or the conventional "<script>.map" name) and reports the maps that are
// served.
func (s *scan) probeSourceMaps(ctx context.Context, p probe) {
	var evidence []string
	var first *httpprobe.Response
	for _, m := range s.announcedMaps(ctx) {
		resp, _ := s.getSameHost(ctx, m)
		if resp == nil || !isSourceMap(resp.Body) {
			continue
		}
		if first == nil {
			first = resp
		}
		if len(evidence) < maxMapEvidence {
			evidence = append(evidence, mapEvidence(resp))
		}
	}
	if first != nil {
		s.report(p, first, `"mappings"`, strings.Join(evidence, "; "))
	}
}

// mapEvidence describes a served source map: the answer and its first
// source.
func mapEvidence(resp *httpprobe.Response) string {
	line := resp.Summary() + ": source map version 3"
	if src := mapFirstSource.FindSubmatch(resp.Body); src != nil {
		line += fmt.Sprintf(", first source %q", httpprobe.Clean(string(src[1]), 120))
	}
	return line
}

// announcedMaps are the distinct source maps the home page's first
// maxScripts same-host scripts announce.
func (s *scan) announcedMaps(ctx context.Context) []*url.URL {
	var maps []*url.URL
	seen := map[string]bool{}
	fetched := 0
	for _, script := range httpprobe.ScriptSources(s.home.Body, s.home.URL, 50) {
		if fetched == maxScripts || ctx.Err() != nil {
			break
		}
		resp, tried := s.getSameHost(ctx, script)
		if tried {
			fetched++
		}
		if resp == nil {
			continue
		}
		if m, _ := httpprobe.AnnouncedMap(resp); m != nil && !seen[m.String()] {
			seen[m.String()] = true
			maps = append(maps, m)
		}
	}
	return maps
}

// getSameHost fetches u when it is on the home page's host and the policy
// allows it (tried); resp is nil unless it answered 200 with a page that is
// not a soft 404. A failed request is counted.
func (s *scan) getSameHost(ctx context.Context, u *url.URL) (resp *httpprobe.Response, tried bool) {
	if !httpprobe.SameHost(u, s.home.URL) || httpprobe.CheckURL(s.env, u) != nil {
		return nil, false
	}
	resp, err := s.client.Do(ctx, httpprobe.Request{URL: u, MaxBody: maxBody})
	if err != nil {
		s.countFailure()
		return nil, true
	}
	if resp.Status != http.StatusOK || s.isSoft404(resp) {
		return nil, true
	}
	return resp, true
}

func (s *scan) countFailure() {
	s.mu.Lock()
	s.failed++
	s.mu.Unlock()
}

// isSourceMap reports a body that starts like a version 3 source map
// (optionally behind the ")]}'" anti-JSON-hijacking prefix).
func isSourceMap(body []byte) bool {
	t := bytes.TrimSpace(body)
	t = bytes.TrimSpace(bytes.TrimPrefix(t, []byte(")]}'")))
	return bytes.HasPrefix(t, []byte("{")) && mapVersion.Match(t) && mapMappings.Match(t)
}
