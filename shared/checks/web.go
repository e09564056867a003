package checks

import "secscan/shared/scans"

// References shared by several web checks.
const (
	refMDNHeaders   = "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/"
	refWSTGFingerpr = "https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/02-Fingerprint_Web_Server"
	refCWE319       = "https://cwe.mitre.org/data/definitions/319.html"
	refCWE548       = "https://cwe.mitre.org/data/definitions/548.html"
	refCWE209       = "https://cwe.mitre.org/data/definitions/209.html"
	refCWE200       = "https://cwe.mitre.org/data/definitions/200.html"
	refOWASPHeaders = "https://owasp.org/www-project-secure-headers/"

	// hardening is the rationale of the missing browser hardening headers:
	// they limit the damage of another flaw but are no flaw themselves.
	hardening = "Defence in depth only: exploiting its absence needs another flaw (OWASP Secure Headers Project, issue 19 calibration)."
)

// Browser hardening headers (package web, and tls_check for HSTS).
var (
	HeaderCSP = define(Check{
		Code: "web.header.csp", Title: "Missing Content-Security-Policy header",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693",
		Rationale:   hardening + " Low rather than info: CSP is the main mitigation of XSS.",
		Description: "The page is served without a Content-Security-Policy header, so the browser has no second line of defence against cross-site scripting and injected third-party content.",
		Remediation: "Send a Content-Security-Policy header on HTML responses; start with default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self' and tighten script-src (nonces or hashes instead of 'unsafe-inline').",
		References: []string{
			"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP",
			"https://cheatsheetseries.owasp.org/cheatsheets/Content_Security_Policy_Cheat_Sheet.html",
		},
	})
	HeaderHSTS = define(Check{
		Code: "web.header.hsts", Title: "Missing Strict-Transport-Security header",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319",
		Rationale:   hardening + " SSL stripping needs an attacker on the network path and a first plain-HTTP request.",
		Description: "The HTTPS response carries no valid Strict-Transport-Security header, so browsers keep trying plain HTTP first for this host (typed URLs, old links), where an attacker on the network can strip TLS and read or change the traffic.",
		Remediation: "Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every HTTPS response (add preload once every subdomain serves HTTPS), and redirect HTTP to HTTPS.",
		References: []string{
			refMDNHeaders + "Strict-Transport-Security",
			"https://www.rfc-editor.org/rfc/rfc6797",
			"https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html",
		},
	})
	HeaderHSTSMaxAge = define(Check{
		Code: "web.header.hsts-max-age", Title: "Weak Strict-Transport-Security max-age",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319",
		Rationale:   "Hardening that is present but short-lived: never more severe than a missing HSTS header (low).",
		Description: "The Strict-Transport-Security header's max-age is shorter than 180 days, so browsers that have not visited for that long fall back to trying plain HTTP first.",
		Remediation: "Use max-age=31536000 (one year) or more, with includeSubDomains, as HSTS preload lists require.",
		References:  []string{refMDNHeaders + "Strict-Transport-Security", "https://hstspreload.org/"},
	})
	HeaderFrameOptions = define(Check{
		Code: "web.header.x-frame-options", Title: "Missing X-Frame-Options header",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1021",
		Rationale:   hardening + " Clickjacking needs a page whose clicks change state and a user lured to the attacker's site.",
		Description: "The page sets neither X-Frame-Options nor a CSP frame-ancestors directive, so any site can frame it and trick users into clicking on it (clickjacking).",
		Remediation: "Send Content-Security-Policy: frame-ancestors 'self' (or 'none'), and X-Frame-Options: DENY or SAMEORIGIN for older browsers.",
		References: []string{
			refMDNHeaders + "X-Frame-Options",
			"https://cheatsheetseries.owasp.org/cheatsheets/Clickjacking_Defense_Cheat_Sheet.html",
		},
	})
	HeaderNoSniff = define(Check{
		Code: "web.header.x-content-type-options", Title: "Missing X-Content-Type-Options header",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693",
		Rationale:   hardening + " Sniffing matters only where users can upload or control served content.",
		Description: "Without X-Content-Type-Options: nosniff, browsers may guess (sniff) content types and run uploaded or user-controlled files as script or HTML.",
		Remediation: "Send X-Content-Type-Options: nosniff on every response.",
		References:  []string{refMDNHeaders + "X-Content-Type-Options", refOWASPHeaders},
	})
	HeaderReferrerPolicy = define(Check{
		Code: "web.header.referrer-policy", Title: "Missing Referrer-Policy header",
		Category: scans.CategoryWeb, Severity: scans.Info, CWE: "CWE-200",
		Rationale:   "Informational: current browsers already default to strict-origin-when-cross-origin, so the header changes little.",
		Description: "Without a Referrer-Policy, the page relies on browser defaults to decide how much of its URL (paths, query strings with tokens) is sent to other sites.",
		Remediation: "Send Referrer-Policy: strict-origin-when-cross-origin (or no-referrer).",
		References:  []string{refMDNHeaders + "Referrer-Policy", refOWASPHeaders},
	})
	HeaderPermissionsPolicy = define(Check{
		Code: "web.header.permissions-policy", Title: "Missing Permissions-Policy header",
		Category: scans.CategoryWeb, Severity: scans.Info, CWE: "CWE-693",
		Rationale:   "Informational: browsers already ask the user before granting powerful features; the header only narrows them further.",
		Description: "Without a Permissions-Policy, any script or frame on the page may ask for powerful browser features (camera, microphone, geolocation, payment).",
		Remediation: "Send a Permissions-Policy that disables what the site does not use, e.g. Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=().",
		References:  []string{refMDNHeaders + "Permissions-Policy", refOWASPHeaders},
	})
)

// Version disclosure (web and crawl).
var (
	VersionHeader = define(Check{
		Code: "web.version-disclosure.header", Title: "Server version disclosed in HTTP headers",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200",
		Rationale:   "Version disclosure only helps an attacker pick known flaws; the flaws themselves are reported by vuln checks (issue 19 calibration).",
		Description: "Response headers name the server software and its exact version, which tells attackers which published vulnerabilities to try.",
		Remediation: "Hide version numbers: ServerTokens Prod and ServerSignature Off (Apache), server_tokens off (nginx), expose_php = Off (PHP), and remove X-Powered-By / X-AspNet-Version headers.",
		References:  []string{refWSTGFingerpr},
	})
	VersionPage = define(Check{
		Code: "web.version-disclosure.page", Title: "Software version disclosed in page content",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-200",
		Rationale:   "Version disclosure only helps an attacker pick known flaws; the flaws themselves are reported by vuln checks (issue 19 calibration).",
		Description: "Pages print the exact version of the server or application software (default error page footers, a generator meta tag), which tells attackers which published vulnerabilities to try.",
		Remediation: "Replace default error pages (ErrorDocument in Apache, error_page and server_tokens off in nginx, ErrorReportValve showServerInfo=\"false\" in Tomcat) and remove version numbers from generator meta tags.",
		References:  []string{refWSTGFingerpr},
	})
)

// Cookies (package web).
var (
	CookieSecure = define(Check{
		Code: "web.cookie.secure", Title: "Cookie without Secure flag",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-614",
		Rationale:   "A network attacker reads the cookie from any plain-HTTP request, no other flaw needed (CVSS 3.1 about 5.3, AV:A).",
		Description: "A cookie set over HTTPS lacks the Secure flag, so the browser also sends it over plain HTTP, where a network attacker can read it.",
		Remediation: "Set the Secure flag on every cookie of an HTTPS site (and prefer the __Host- prefix for session cookies).",
		References:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies#restrict_access_to_cookies"},
	})
	CookieHTTPOnly = define(Check{
		Code: "web.cookie.httponly", Title: "Cookie without HttpOnly flag",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1004",
		Rationale:   "Hardening: it only matters once an attacker can run script on the page (XSS).",
		Description: "A cookie lacks the HttpOnly flag, so any script on the page (including injected script) can read it; for session cookies this turns an XSS into account takeover.",
		Remediation: "Set HttpOnly on every cookie that scripts do not need to read, always on session cookies.",
		References:  []string{"https://owasp.org/www-community/HttpOnly"},
	})
	CookieSameSite = define(Check{
		Code: "web.cookie.samesite", Title: "Cookie without SameSite attribute",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-1275",
		Rationale:   "Hardening: most browsers default to Lax; CSRF also needs a state-changing request without a token.",
		Description: "A cookie has no SameSite attribute, leaving cross-site request forgery protection to browser defaults, which differ between browsers.",
		Remediation: "Set SameSite=Lax (or Strict) on session cookies; use SameSite=None; Secure only for cookies that must be sent cross-site.",
		References:  []string{"https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Set-Cookie#samesitesamesite-value"},
	})
)

// Active probes of package web.
var (
	CORSCredentials = define(Check{
		Code: "web.cors.credentials", Title: "CORS reflects arbitrary origins with credentials",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-942",
		Rationale:   "Any website a logged-in user visits reads their data with their cookies: confidentiality loss without other flaws (CVSS 3.1 about 7.4).",
		Description: "The server copies any Origin into Access-Control-Allow-Origin and allows credentials, so any website a logged-in user visits can read this site's responses with the user's cookies (account data, CSRF tokens).",
		Remediation: "Allow only an explicit list of trusted origins (exact match on scheme, host and port) and never reflect the Origin header; send Access-Control-Allow-Credentials only for those origins.",
		References: []string{
			"https://portswigger.net/web-security/cors",
			"https://developer.mozilla.org/en-US/docs/Web/HTTP/CORS",
		},
	})
	CORSReflected = define(Check{
		Code: "web.cors.reflected", Title: "CORS reflects arbitrary origins",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-942",
		Rationale:   "Without credentials other sites read only what they could fetch themselves, except intranet-only or token-protected data.",
		Description: "The server copies any Origin into Access-Control-Allow-Origin (without credentials), so any website can read this page's responses; harmful when responses depend on network position (intranet) or on non-cookie credentials.",
		Remediation: "Allow only an explicit list of trusted origins, or use Access-Control-Allow-Origin: * deliberately for truly public data.",
		References:  []string{"https://portswigger.net/web-security/cors"},
	})
	HTTPTrace = define(Check{
		Code: "web.http-trace", Title: "HTTP TRACE method enabled",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-693",
		Rationale:   "Cross-site tracing needs another flaw; current browsers refuse to send TRACE from script.",
		Description: "The server answers TRACE by echoing the request, headers included; combined with other flaws this exposes cookies and authorization headers that HttpOnly is meant to protect (cross-site tracing).",
		Remediation: "Disable TRACE: TraceEnable off (Apache), or reject the method at the proxy or load balancer.",
		References: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/06-Test_HTTP_Methods",
		},
	})
	HTTPSRedirect = define(Check{
		Code: "web.https-redirect", Title: "HTTP does not redirect to HTTPS",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319",
		Rationale:   "Users who type the address get an unencrypted session a network attacker can read and change (cleartext transmission, CWE-319).",
		Description: "The site answers plain HTTP with content instead of redirecting to HTTPS, so users who type the address or follow an http:// link use an unencrypted connection that can be read and altered.",
		Remediation: "Answer every plain-HTTP request with a 301 or 308 redirect to the same URL over https://, then add HSTS.",
		References: []string{
			"https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html",
		},
	})
	SecurityTxt = define(Check{
		Code: "web.security-txt", Title: "Missing security.txt",
		Category: scans.CategoryWeb, Severity: scans.Info,
		Rationale:   "Informational: a reporting channel for researchers (RFC 9116), not a weakness an attacker can use.",
		Description: "The site publishes no /.well-known/security.txt (RFC 9116), so researchers who find a vulnerability have no documented way to report it.",
		Remediation: "Publish /.well-known/security.txt with at least Contact: and Expires: fields.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc9116", "https://securitytxt.org/"},
	})
	SecurityTxtExpired = define(Check{
		Code: "web.security-txt-expired", Title: "Expired security.txt",
		Category: scans.CategoryWeb, Severity: scans.Info,
		Rationale:   "Informational: stale reporting contacts (RFC 9116 section 2.5.5), not a weakness an attacker can use.",
		Description: "The site's security.txt has an Expires date in the past, so its contact details should no longer be trusted (RFC 9116 section 2.5.5).",
		Remediation: "Update the Expires field (at most a year ahead) and review the contacts.",
		References:  []string{"https://www.rfc-editor.org/rfc/rfc9116"},
	})
	OpenRedirect = define(Check{
		Code: "web.open-redirect", Title: "Open redirect",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-601",
		Rationale:   "Needs user interaction but lends the site's name to phishing and can leak OAuth codes (CVSS 3.1 about 6.1).",
		Description: "The site redirects to any URL given in a query parameter, which lends its name to phishing links and can leak OAuth codes or tokens to other sites.",
		Remediation: "Redirect only to relative paths or to an allow-list of destinations; reject absolute and protocol-relative URLs in redirect parameters.",
		References: []string{
			"https://cheatsheetseries.owasp.org/cheatsheets/Unvalidated_Redirects_and_Forwards_Cheat_Sheet.html",
		},
	})
)

// Page checks of the web crawl.
var (
	PasswordOverHTTP = define(Check{
		Code: "web.password-over-http", Title: "Password field on a page served over HTTP",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-319",
		Rationale:   "Credentials can be captured by anyone on the network path, with no other flaw needed (cleartext credentials, CWE-319).",
		Description: "A page with a password field is served over plain HTTP: anyone on the network path (public Wi-Fi, a compromised router) can read or rewrite the page, so the typed password can be captured even when the form itself posts to HTTPS.",
		Remediation: "Serve every page over HTTPS, redirect HTTP to HTTPS with a 301/308 and send Strict-Transport-Security so browsers never load the login page over HTTP.",
		References: []string{
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/04-Authentication_Testing/01-Testing_for_Credentials_Transported_over_an_Encrypted_Channel",
			refCWE319,
		},
	})
	PasswordFormToHTTP = define(Check{
		Code: "web.password-form-to-http", Title: "Form with a password field submits over plain HTTP",
		Category: scans.CategoryWeb, Severity: scans.High, CWE: "CWE-319",
		Rationale:   "Credentials travel in cleartext on every login (CWE-319).",
		Description: "A form with a password field on an HTTPS page posts to an http:// URL, so the credentials travel unencrypted and can be read by anyone on the network path.",
		Remediation: "Point the form's action at an https:// URL (or a relative path) and redirect the HTTP endpoint to HTTPS.",
		References:  []string{refCWE319},
	})
	FormToHTTP = define(Check{
		Code: "web.form-to-http", Title: "Form submits over plain HTTP",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319",
		Rationale:   "User input travels in cleartext, but not credentials (those are web.password-form-to-http).",
		Description: "A form sends its data to an http:// URL (from an HTTPS page, or with POST from an HTTP page), so what users type travels unencrypted and can be read or altered on the network path.",
		Remediation: "Serve the form and its action over HTTPS: use https:// or relative action URLs and redirect HTTP to HTTPS.",
		References:  []string{refCWE319},
	})
	MixedActive = define(Check{
		Code: "web.mixed-content.active", Title: "Mixed content: scripts, styles or frames loaded over HTTP",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-319",
		Rationale:   "A network attacker who replaces a script takes over the page, though current browsers block active mixed content.",
		Description: "An HTTPS page loads scripts, stylesheets, frames or plugins over plain HTTP. A network attacker can replace them and take over the page; current browsers block such content, so the page is also broken for them.",
		Remediation: "Load every subresource over HTTPS (or relative URLs), and add Content-Security-Policy: upgrade-insecure-requests while fixing the references.",
		References: []string{
			"https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content",
			"https://www.w3.org/TR/mixed-content/",
		},
	})
	MixedPassive = define(Check{
		Code: "web.mixed-content.passive", Title: "Mixed content: images or media loaded over HTTP",
		Category: scans.CategoryWeb, Severity: scans.Low, CWE: "CWE-319",
		Rationale:   "Replaced images or media can mislead but cannot run code; browsers upgrade or flag them.",
		Description: "An HTTPS page loads images, audio or video over plain HTTP, which a network attacker can read or replace (and which tells them what the user views); browsers show the page as not fully secure.",
		Remediation: "Load images and media over HTTPS (or relative URLs); Content-Security-Policy: upgrade-insecure-requests helps while fixing the references.",
		References:  []string{"https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content"},
	})
	DirectoryListing = define(Check{
		Code: "web.directory-listing", Title: "Directory listing enabled",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-548",
		Rationale:   "Reveals unlinked files to anyone; the harm depends on what is listed (files served from it are reported apart).",
		Description: "The web server lists the files of a directory, so anyone can find files that are not linked anywhere (backups, configuration, private documents).",
		Remediation: "Disable directory listings (Options -Indexes in Apache, autoindex off in nginx, directoryBrowse enabled=\"false\" in IIS) and move backups out of the web root.",
		References:  []string{refCWE548},
	})
	ErrorDetails = define(Check{
		Code: "web.error-details", Title: "Error page reveals stack trace or debug information",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-209",
		Rationale:   "Reveals paths, code structure and sometimes queries or settings that make other attacks easier (CWE-209).",
		Description: "A page shows a stack trace, a framework debug page or a raw database error. It reveals file paths, code structure, library versions and sometimes queries or configuration, and debug modes often offer more (interactive consoles, settings).",
		Remediation: "Turn debug mode off in production (DEBUG = False in Django, no Werkzeug debugger, APP_DEBUG=false in Laravel, customErrors/ASPNETCORE_ENVIRONMENT=Production in .NET, display_errors = Off in PHP), log details server-side and show a generic error page.",
		References: []string{
			refCWE209,
			"https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/08-Testing_for_Error_Handling/01-Testing_For_Improper_Error_Handling",
		},
	})
)
