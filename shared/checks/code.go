package checks

import "secscan/shared/scans"

// Secrets in what a site serves (code_scan, file_secrets). One code for
// every secret kind: a finding sets its own title ("AWS access key exposed in
// /app.js") and severity (critical for a working key pair, low for a
// generic high-entropy string).
var Secret = define(Check{
	Code: "code.secret", Title: "Secret exposed in served code or files",
	Category: scans.CategoryCode, Severity: scans.High, CWE: "CWE-798",
	Rationale:   "A live credential readable by anyone grants its permissions (CWE-798); the tool raises it to critical for a complete cloud key pair and lowers it to low for generic high-entropy strings.",
	Description: "A script, page, source map or configuration file the site serves to anyone contains a credential (API key, token, password, private key) that a secret detector recognises.",
	Remediation: "Revoke or rotate the credential now (assume it is compromised), remove it from what the site serves, and load secrets at run time from a secret store on the server side.",
	References: []string{
		"https://cwe.mitre.org/data/definitions/798.html",
		"https://cheatsheetseries.owasp.org/cheatsheets/Secrets_Management_Cheat_Sheet.html",
	},
})
