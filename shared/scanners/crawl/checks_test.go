package crawl

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseHTML(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("https://example.test/shop/index.html")
	body := []byte(`<html><head>
<meta name="Generator" content="WordPress 6.4.2">
<link rel="preload stylesheet" href="http://cdn.example.net/a.css">
<link rel="icon" href="http://cdn.example.net/favicon.ico">
<script src="/js/app.js"></script>
</head><body>
<a href="cart#top">cart</a>
<a href="mailto:a@example.test">mail</a>
<a href="javascript:void(0)">js</a>
<a href="//sub.example.test/x">sub</a>
<area href="/map">
<iframe src="http://example.test/frame"></iframe>
<img src="http://example.test/a.png">
<form method="post" action="/login"><input name="user"><input type="password" name="pw"></form>
<form action="javascript:go()"><input name="ignored"></form>
<form><input name="q"><select name="sort"></select>
<base href="https://static.example.test/assets/">
<a href="next">next</a>
</body></html>`)
	doc := parseHTML(body, page)
	var links []string
	for _, l := range doc.links {
		links = append(links, l.String())
	}
	wantLinks := "https://example.test/shop/cart https://sub.example.test/x https://example.test/map http://example.test/frame https://static.example.test/assets/next"
	if got := strings.Join(links, " "); got != wantLinks {
		t.Errorf("links = %s\nwant    %s", got, wantLinks)
	}
	if doc.generator != "WordPress 6.4.2" {
		t.Errorf("generator = %q", doc.generator)
	}
	if len(doc.forms) != 2 {
		t.Fatalf("forms = %+v, want the login form and the unclosed search form", doc.forms)
	}
	login, search := doc.forms[0], doc.forms[1]
	if login.method != "POST" || login.action.String() != "https://example.test/login" || !login.password || strings.Join(login.fields, ",") != "user,pw" {
		t.Errorf("login form = %+v", login)
	}
	if search.method != "GET" || search.action.String() != page.String() || search.password || strings.Join(search.fields, ",") != "q,sort" {
		t.Errorf("search form = %+v", search)
	}
	var resources []string
	for _, r := range doc.resources {
		kind := "passive"
		if r.active {
			kind = "active"
		}
		resources = append(resources, r.url.String()+" "+kind)
	}
	wantResources := "http://cdn.example.net/a.css active, https://example.test/js/app.js active, http://example.test/frame active, http://example.test/a.png passive"
	if got := strings.Join(resources, ", "); got != wantResources {
		t.Errorf("resources = %s\nwant        %s", got, wantResources)
	}
	if len(doc.scripts) != 1 || doc.scripts[0].String() != "https://example.test/js/app.js" {
		t.Errorf("scripts = %v", doc.scripts)
	}
}

func TestMatchDebug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"java", "<pre>java.lang.NullPointerException: null\n\tat com.example.shop.CartController.view(CartController.java:42)\n\tat sun.reflect.NativeMethodAccessorImpl.invoke0(NativeMethodAccessorImpl.java:62)\n</pre>", "Java stack trace"},
		{"python", "Traceback (most recent call last):\n  File \"/srv/app/views.py\", line 12, in index\n    1/0\nZeroDivisionError: division by zero", "Python traceback"},
		{"python in html", "<pre>Traceback (most recent call last):\n  File &quot;/srv/app/views.py&quot;, line 12, in index</pre>", "Python traceback"},
		{"php warning", "<br />\n<b>Warning</b>:  include(config.php): failed to open stream in <b>/var/www/html/index.php</b> on line <b>3</b><br />", "PHP error message"},
		{"php uncaught", "<b>Fatal error</b>:  Uncaught Error: Call to undefined function foo() in /var/www/html/a.php:2\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/html/a.php</b> on line <b>2</b>", "PHP stack trace"},
		{"aspnet", "<title>Runtime Error</title><h1>Server Error in '/' Application.</h1><b> Exception Details: </b>System.NullReferenceException", "ASP.NET error page"},
		{"node", "<pre>TypeError: Cannot read properties of undefined (reading 'id')<br> &nbsp; &nbsp;at getUser (/app/routes/users.js:14:22)<br> &nbsp; &nbsp;at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)</pre>", "Node.js stack trace"},
		{"go", "panic: runtime error: index out of range\n\ngoroutine 7 [running]:\nmain.handler(...)\n\t/src/main.go:20 +0x1d", "Go panic"},
		{"django", "<p>You&#x27;re seeing this error because you have <code>DEBUG = True</code> in your Django settings file.</p>", "Django debug page"},
		{"werkzeug", "<title>ZeroDivisionError // Werkzeug Debugger</title>", "Werkzeug (Flask) debugger"},
		{"mysql", "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near ''' at line 1", "MySQL error message"},
		{"pdo", "SQLSTATE[42S02]: Base table or view not found", "PDO database error"},
		{"prose about exceptions", "<p>Our guide explains what a java.lang.NullPointerException is and how to read at com.example.Foo.bar(Foo.java:1).</p>", ""},
		{"prose about tracebacks", "<p>Python prints Traceback (most recent call last): when something fails.</p>", ""},
		{"single node frame", "Error: boom\n    at main (/app/x.js:1:1)", ""},
		{"plain page", "<html><body>Welcome to our shop</body></html>", ""},
	}
	for _, tc := range tests {
		what, excerpt, ok := matchDebug([]byte(tc.body))
		if what != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: matchDebug = %q, %v; want %q", tc.name, what, ok, tc.want)
		}
		if ok && (excerpt == "" || len(excerpt) > 200) {
			t.Errorf("%s: excerpt %q", tc.name, excerpt)
		}
	}
}

func TestMatchListing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want bool
	}{
		{"<html><head><title>Index of /files</title></head><body><h1>Index of /files</h1>", true},
		{"<html><body><h1>Index of /backup/</h1><hr><pre><a href=\"../\">../</a>", true},
		{`<body><H1>example.test - /pub/</H1><hr><pre><A HREF="/">[To Parent Directory]</A><br>`, true},
		{"<title>Product index</title>", false},
		{"<p>An Index of /things we like</p>", false},
	}
	for _, tc := range tests {
		if _, got := matchListing([]byte(tc.body)); got != tc.want {
			t.Errorf("matchListing(%q) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
