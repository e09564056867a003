package vuln

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"secscan/shared/netguard"
	"secscan/shared/scanners/internal/scantest"
	"secscan/shared/scans"
)

// seen renders sightings as "product version" for comparison.
func seen(ss []sighting) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.product+" "+s.version.String())
	}
	return out
}

func TestBannerAndHeaderFingerprints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		svc  scans.Service
		want []string
	}{
		{"proftpd", scans.Service{Name: "ftp", Banner: "220 ProFTPD 1.3.5 Server (Debian) [::ffff:10.0.0.1]"}, []string{"proftpd 1.3.5"}},
		{"proftpd letter release", scans.Service{Name: "ftp", Banner: "220 ProFTPD 1.3.5e Server (ProFTPD)"}, []string{"proftpd 1.3.5e"}},
		{"proftpd release candidate", scans.Service{Name: "ftp", Banner: "220 ProFTPD 1.3.6rc4 Server"}, []string{"proftpd 1.3.6rc4"}},
		{"proftpd without version", scans.Service{Name: "ftp", Banner: "220 ProFTPD Server (Debian)"}, nil},
		{"exim", scans.Service{Name: "smtp", Banner: "220 mx.example.test ESMTP Exim 4.94.2 Mon, 01 Nov 2026"}, []string{"exim 4.94.2"}},
		{"postfix announces no version", scans.Service{Name: "smtp", Banner: "220 mail.example.test ESMTP Postfix (Debian/GNU)"}, nil},
		{"vsftpd", scans.Service{Name: "ftp", Banner: "220 (vsFTPd 3.0.3)"}, []string{"vsftpd 3.0.3"}},
		{"openssh", scans.Service{Name: "ssh", Banner: "SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6"}, []string{"openssh 8.9p1"}},
		{"mysql greeting", scans.Service{Name: "mysql", Banner: "MySQL protocol 10 greeting, server version 5.7.15-log"}, []string{"mysql 5.7.15"}},
		{"mariadb greeting", scans.Service{Name: "mysql", Banner: "MySQL protocol 10 greeting, server version 5.5.5-10.3.27-MariaDB-0+deb10u1"}, []string{"mariadb 10.3.27"}},
		{"elasticsearch", scans.Service{Name: "elasticsearch", Banner: "HTTP/1.1 200 OK | X-Elastic-Product: Elasticsearch | version 7.10.2"}, []string{"elasticsearch 7.10.2"}},
		{"version text on another service", scans.Service{Name: "http", Banner: "HTTP/1.1 200 OK | version 7.10.2"}, nil},
		{"nginx http banner", scans.Service{Name: "http", Banner: "HTTP/1.1 301 Moved Permanently | Server: nginx/1.18.0 (Ubuntu)"}, []string{"nginx 1.18.0"}},
		{"iis http banner", scans.Service{Name: "http", Banner: "HTTP/1.1 200 OK | Server: Microsoft-IIS/8.5"}, []string{"iis 8.5"}},
		{"jetty http banner", scans.Service{Name: "http", Banner: "HTTP/1.1 200 OK | Server: Jetty(9.4.38.v20210224)"}, []string{"jetty 9.4.38"}},
		{"jetty snapshot", scans.Service{Name: "http", Banner: "HTTP/1.1 200 OK | Server: Jetty(9.4.z-SNAPSHOT)"}, nil},
		{"tomcat in X-Powered-By", scans.Service{Name: "http", Banner: "Servlet/3.0 JSP/2.2 (Apache Tomcat/7.0.42 Java/Oracle Corporation/1.7)"}, []string{"tomcat 7.0.42"}},
		{"coyote names no release", scans.Service{Name: "http", Banner: "HTTP/1.1 200 OK | Server: Apache-Coyote/1.1"}, nil},
		{"redis says no version", scans.Service{Name: "redis", Banner: "-NOAUTH Authentication required."}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.svc.Host, tc.svc.Port = "example.test", 1
			got := seen(bannerSightings(tc.svc))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("bannerSightings(%q) = %v, want %v", tc.svc.Banner, got, tc.want)
			}
		})
	}
}

func TestPageFingerprints(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("https://example.test/missing")
	tests := []struct {
		name, body string
		want       []string
	}{
		{"tomcat error page", `<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body><h1>HTTP Status 404 – Not Found</h1><hr class="line" /><h3>Apache Tomcat/9.0.30</h3></body></html>`, []string{"tomcat 9.0.30"}},
		{"tomcat welcome page", `<title>Apache Tomcat/8.5.50</title>`, []string{"tomcat 8.5.50"}},
		{"apache error page", `<hr><address>Apache/2.4.41 (Ubuntu) Server at example.test Port 80</address></body></html>`, []string{"apache_httpd 2.4.41"}},
		{"nginx error page", "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx/1.18.0</center></body></html>", []string{"nginx 1.18.0"}},
		{"nginx without version", "<hr><center>nginx</center>", nil},
		{"jetty error page", `<hr><a href="https://eclipse.org/jetty">Powered by Jetty:// 9.4.38.v20210224</a><hr/>`, []string{"jetty 9.4.38"}},
		{"prose is not a footer", `<p>We run Apache/2.4.41 and nginx/1.18.0 in production.</p>`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := seen(pageSightings([]byte(tc.body), page, 404))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("pageSightings = %v, want %v", got, tc.want)
			}
		})
	}
	if pv := PageVersions([]byte(tests[0].body)); len(pv) != 1 || pv[0].Product != "Apache Tomcat" || pv[0].Version != "9.0.30" || pv[0].Text != "Apache Tomcat/9.0.30" {
		t.Errorf("PageVersions = %+v", pv)
	}
}

func TestScriptFingerprints(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("https://example.test/")
	names := []struct {
		src  string
		want []string
	}{
		{"/js/handlebars-v4.0.5.js", []string{"handlebars 4.0.5"}},
		{"/js/handlebars.min-v4.7.6.js", []string{"handlebars 4.7.6"}},
		{"/js/handlebars.runtime-v4.1.2.js", []string{"handlebars 4.1.2"}},
		{"https://cdnjs.cloudflare.com/ajax/libs/handlebars.js/4.0.12/handlebars.min.js", []string{"handlebars 4.0.12"}},
		{"https://cdn.jsdelivr.net/npm/handlebars@4.7.7/dist/handlebars.min.js", []string{"handlebars 4.7.7"}},
		{"https://cdnjs.cloudflare.com/ajax/libs/dompurify/2.0.16/purify.min.js", []string{"dompurify 2.0.16"}},
		{"https://cdn.jsdelivr.net/npm/dompurify@3.0.6/dist/purify.min.js", []string{"dompurify 3.0.6"}},
		{"https://cdnjs.cloudflare.com/ajax/libs/vue/2.6.14/vue.min.js", []string{"vue 2.6.14"}},
		{"https://unpkg.com/vue@3.4.21/dist/vue.global.prod.js", []string{"vue 3.4.21"}},
		{"/static/vue-router-3.5.1.js", nil},
		{"/static/purify.js", nil},
	}
	for _, tc := range names {
		u, err := page.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := seen(scriptNameSightings(u, page)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("scriptNameSightings(%s) = %v, want %v", tc.src, got, tc.want)
		}
	}
	bodies := []struct {
		name, body string
		want       []string
	}{
		{"handlebars 4", "/**!\n\n @license\n handlebars v4.0.5\n\nCopyright (C) 2011-2016 by Yehuda Katz\n", []string{"handlebars 4.0.5"}},
		{"handlebars 3", "/*!\n\n handlebars v3.0.3\n\nCopyright (C) 2011-2014 by Yehuda Katz\n", []string{"handlebars 3.0.3"}},
		{"dompurify", "/*! @license DOMPurify 2.0.16 | (c) Cure53 and other contributors | Released under the Apache license 2.0 and Mozilla Public License 2.0 | github.com/cure53/DOMPurify/blob/2.0.16/LICENSE */", []string{"dompurify 2.0.16"}},
		{"vue", "/*!\n * Vue.js v2.6.14\n * (c) 2014-2021 Evan You\n * Released under the MIT License.\n */", []string{"vue 2.6.14"}},
		{"a mention is not a header", "// works with handlebars v4.0.5 templates; see Vue.js v2.6.14 docs", nil},
	}
	script, _ := page.Parse("/js/vendor.js")
	for _, tc := range bodies {
		if got := seen(scriptBodySightings([]byte(tc.body), script, page)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: scriptBodySightings = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestVersionCheckDefaultPages covers the sources added for servers that
// hide their Server header: the footer of the not-found page, and the
// newer script libraries.
func TestVersionCheckDefaultPages(t *testing.T) {
	t.Parallel()
	var notFoundHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head>
<script src="/js/handlebars-v4.0.5.js"></script>
<script src="/js/purify.min.js"></script>
<script src="/js/vendor.js"></script>
</head><body>shop</body></html>`)
	})
	mux.HandleFunc("/js/purify.min.js", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "/*! @license DOMPurify 2.0.16 | (c) Cure53 and other contributors */\n!function(){}")
	})
	mux.HandleFunc("/js/vendor.js", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "/*!\n * Vue.js v2.6.14\n * (c) 2014-2021 Evan You\n */\n")
	})
	mux.HandleFunc("/js/handlebars-v4.0.5.js", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "/**!\n\n @license\n handlebars v4.0.5\n\n*/")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		notFoundHits.Add(1)
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body><h1>HTTP Status 404 – Not Found</h1><hr class="line" /><h3>Apache Tomcat/9.0.30</h3></body></html>`)
	})
	site := scantest.NewSite(t, "shop.test", netguard.Policy{AllowPrivate: true}, nil, mux)
	clock := withClock(func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) })
	res, err := New(WithRootCAs(site.Roots), clock).Run(context.Background(), site.Env, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("outcome: %s", res.Outcome)
	want := map[string]scans.Severity{
		"CVE-2020-1938": scans.Critical, "CVE-2020-9484": scans.High, "CVE-2024-50379": scans.Critical, "CVE-2025-24813": scans.Critical,
		"CVE-2019-19919": scans.Critical, "CVE-2019-20920": scans.High, "CVE-2019-20922": scans.High, "CVE-2021-23369": scans.Critical, "CVE-2021-23383": scans.Critical,
		"CVE-2020-26870":            scans.Medium,
		"Vue.js 2.x is end of life": scans.Low,
	}
	for _, f := range expandGroups(t, res.Findings) {
		id := f.Title
		if f.CVE != nil {
			id = *f.CVE
		}
		sev, ok := want[id]
		if !ok {
			t.Errorf("unexpected finding %s: %s", id, f.Title)
			continue
		}
		if f.Severity != "" && f.Severity != sev {
			t.Errorf("%s: severity %s, want %s", id, f.Severity, sev)
		}
		if id == "CVE-2020-1938" && !strings.Contains(f.Evidence, "Apache Tomcat/9.0.30") {
			t.Errorf("Ghostcat evidence does not quote the footer: %s", f.Evidence)
		}
		checkFinding(t, f)
		delete(want, id)
	}
	for id := range want {
		t.Errorf("missing %s", id)
	}
	if n := notFoundHits.Load(); n != 1 {
		t.Errorf("the not-found page was asked for %d times, want once", n)
	}
}
