package checks

import "secscan/shared/scans"

// Admin, metrics and debug endpoints found on any HTTP port (http_fingerprint):
// machine endpoints identified by what they answer (Prometheus exposition
// format, Elasticsearch's cluster JSON, Consul's agent JSON…). The
// Elasticsearch and Docker weaknesses, and Go's pprof/expvar and the Spring
// actuator env endpoint, already have codes (network.go, exposure.go) that
// http_fingerprint reuses: one weakness, one code, whichever tool saw it.
// Products that answered 401 or 403 are no finding (the surface names them).

const (
	endpointNoAuthRationale = "An administration API answers anonymous requests: anyone who reaches the port reads and changes what it manages (CWE-306; CVSS 3.1 about 9.8 where it can run code, 7.5 where it reads)."
	endpointFirewallFix     = "Do not expose the port to the internet: bind it to localhost or a private interface, or allow only the hosts that need it at the firewall or security group."
)

var (
	ExposedMetrics = define(Check{
		Code: "web.exposed-metrics", Title: "Prometheus metrics endpoint exposed without authentication",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200",
		Rationale: "Discloses internal host names, versions, paths and load to anyone, not data or control (CWE-200; CVSS 3.1 about 5.3, C:L).",
		Description: "A Prometheus metrics endpoint (text exposition format) answers without authentication. Exporters " +
			"and instrumented services publish internal host names, addresses, software versions, file systems, " +
			"request paths and load, which maps the infrastructure for an attacker; labels sometimes carry " +
			"user names or tokens.",
		Remediation: endpointFirewallFix + " Prometheus scrapes over a private network; where it must cross the internet, " +
			"protect the endpoint with TLS and basic auth or client certificates (exporter-toolkit --web.config.file).",
		References: []string{"https://prometheus.io/docs/operating/security/",
			"https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md", refCWE200},
	})
	ExposedActuator = define(Check{
		Code: "web.exposed-actuator", Title: "Spring Boot actuator endpoints exposed without authentication",
		Category: scans.CategoryWeb, Severity: scans.Medium, CWE: "CWE-200",
		Rationale: "Lists the management endpoints exposed over HTTP without credentials; the dangerous ones (env, heapdump) are reported on their own (CWE-200).",
		Description: "The Spring Boot actuator index answers without authentication and lists the management " +
			"endpoints exposed over HTTP (health, metrics, mappings, beans, and sometimes env, heapdump or " +
			"loggers). They disclose configuration and internals; some leak credentials or change the application.",
		Remediation: "Expose only health (and info) over HTTP: management.endpoints.web.exposure.include=health; " +
			"serve the actuator on a separate, internal port (management.server.port) and protect it with Spring Security.",
		References: []string{"https://docs.spring.io/spring-boot/reference/actuator/endpoints.html", refCWE200},
	})

	EtcdExposed = define(Check{
		Code: "network.service.etcd-exposed", Title: "etcd client API exposed without client certificates",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-284",
		Rationale: "etcd holds a cluster's state and secrets (Kubernetes stores Secrets in it); a client API reachable without client certificates is one disabled auth setting away from all of it (CIS Kubernetes 2.1, 2.2).",
		Description: "The etcd client API answered over the network without a client certificate. etcd holds the " +
			"state of the systems built on it, Kubernetes Secrets included; unless etcd's own authentication is " +
			"enabled, anyone who reaches the port reads and rewrites every key.",
		Remediation: endpointFirewallFix + " Serve clients over TLS with client-certificate authentication " +
			"(--client-cert-auth, --trusted-ca-file) and enable etcd authentication.",
		References: []string{"https://etcd.io/docs/v3.5/op-guide/security/", refCWE284},
	})
	ConsulNoAuth = define(Check{
		Code: "network.service.consul-unauthenticated", Title: "Consul agent API answers without an ACL token",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306",
		Rationale: endpointNoAuthRationale + " Consul without ACLs lets anyone register services and read the catalogue and KV store; with script checks enabled the tool raises it to critical (code execution).",
		Description: "The Consul HTTP API returned the agent's own configuration without an ACL token, so ACLs are " +
			"off or the anonymous token may read the agent: anyone who reaches the port reads the catalogue and " +
			"key/value store and can register services and health checks; with script checks enabled, that is " +
			"command execution on the agent's host.",
		Remediation: endpointFirewallFix + " Enable ACLs with default_policy = \"deny\", give the anonymous token no " +
			"rights, disable script checks (enable_script_checks = false) and serve the API over HTTPS only.",
		References: []string{"https://developer.hashicorp.com/consul/docs/security/acl", refCWE306},
	})
	KubeletNoAuth = define(Check{
		Code: "network.service.kubelet-unauthenticated", Title: "Kubelet API answers without authentication",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " The same API runs commands in every container of the node (/run, /exec).",
		Description: "The kubelet API listed the node's pods to an anonymous request. The same API runs commands in " +
			"any container on the node and reads their logs, so anonymous access is control of every workload " +
			"the node runs and of the credentials mounted into them.",
		Remediation: "Set the kubelet's --anonymous-auth=false and --authorization-mode=Webhook (authentication.anonymous.enabled: false " +
			"in its configuration file), and block port 10250 from outside the cluster.",
		References: []string{"https://kubernetes.io/docs/reference/access-authn-authz/kubelet-authn-authz/", refCWE306},
	})
	KubernetesAPINoAuth = define(Check{
		Code: "network.service.kubernetes-api-unauthenticated", Title: "Kubernetes API server grants anonymous requests more than public information",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306",
		Rationale: "Anonymous users get more than the default public-info role (health and version): a binding for system:anonymous or system:unauthenticated that may reach cluster objects (CWE-306).",
		Description: "The Kubernetes API server answered an anonymous request for its API paths, which the default " +
			"roles do not allow (anonymous users may read only health and version): a role binding grants " +
			"system:anonymous or system:unauthenticated more, possibly read or write access to cluster objects.",
		Remediation: "Remove role bindings for system:anonymous and system:unauthenticated (kubectl get clusterrolebindings -o wide), " +
			"run the API server with --anonymous-auth=false where possible, and restrict the API endpoint to known networks.",
		References: []string{"https://kubernetes.io/docs/reference/access-authn-authz/authentication/#anonymous-requests", refCWE306},
	})
	JenkinsNoAuth = define(Check{
		Code: "network.service.jenkins-unauthenticated", Title: "Jenkins readable without authentication",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306",
		Rationale: "Anonymous read of a CI server discloses jobs, build logs and often credentials printed into them, and is the first step of pipeline attacks (CWE-306; CVSS 3.1 about 7.5).",
		Description: "Jenkins answered its remote API (/api/json) to an anonymous request: anonymous users have read " +
			"access, so job names, configurations, build logs and artifacts (which often contain credentials) are " +
			"public.",
		Remediation: "In Manage Jenkins → Security, remove the Overall/Read permission from Anonymous (or use " +
			"'Logged-in users can do anything' without anonymous read), and put Jenkins behind a VPN or SSO proxy.",
		References: []string{"https://www.jenkins.io/doc/book/security/access-control/", refCWE306},
	})
	GrafanaAnonymous = define(Check{
		Code: "network.service.grafana-anonymous", Title: "Grafana allows anonymous access",
		Category: scans.CategoryNetwork, Severity: scans.Medium, CWE: "CWE-284",
		Rationale: "Anonymous viewers read the dashboards and, through them, query the data sources; no change of configuration (CWE-284; CVSS 3.1 about 5.3).",
		Description: "Grafana's search API listed dashboards to an anonymous request: anonymous access is enabled, so " +
			"anyone reads the dashboards and can query the data sources behind them within the anonymous role.",
		Remediation: "Disable anonymous access ([auth.anonymous] enabled = false) unless the dashboards are meant to be " +
			"public, and use public dashboards (shared links) for what must be public.",
		References: []string{"https://grafana.com/docs/grafana/latest/setup-grafana/configure-security/configure-authentication/grafana/#anonymous-authentication",
			refCWE284},
	})
	SolrNoAuth = define(Check{
		Code: "network.service.solr-unauthenticated", Title: "Apache Solr admin API answers without authentication",
		Category: scans.CategoryNetwork, Severity: scans.High, CWE: "CWE-306",
		Rationale: endpointNoAuthRationale + " Solr's admin and config APIs have been turned into code execution (CVE-2019-17558, CVE-2019-0193).",
		Description: "Apache Solr answered its admin API (system information) to an anonymous request: anyone who " +
			"reaches it reads and changes the indexed data and configuration, and Solr's config APIs have a " +
			"history of being turned into remote code execution.",
		Remediation: endpointFirewallFix + " Enable Solr's authentication and authorization plugins (security.json " +
			"with BasicAuth and rule-based authorization) and keep Solr patched.",
		References: []string{"https://solr.apache.org/guide/solr/latest/deployment-guide/securing-solr.html", refCWE306},
	})
	CouchDBNoAuth = define(Check{
		Code: "network.service.couchdb-unauthenticated", Title: "CouchDB lists databases without authentication",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " An anonymous request was answered by an admin-only endpoint (admin party).",
		Description: "CouchDB listed its databases (/_all_dbs, admin-only by default) to an anonymous request: the " +
			"server runs without an admin (\"admin party\") or grants anonymous users admin rights, so anyone reads, " +
			"changes and deletes every database.",
		Remediation: endpointFirewallFix + " Create an admin user (CouchDB 3 refuses to start without one), set " +
			"[chttpd] require_valid_user = true and check the databases for unknown changes.",
		References: []string{"https://docs.couchdb.org/en/stable/intro/security.html", refCWE306},
	})
	RabbitMQNoAuth = define(Check{
		Code: "network.service.rabbitmq-unauthenticated", Title: "RabbitMQ management API answers without credentials",
		Category: scans.CategoryNetwork, Severity: scans.Critical, CWE: "CWE-306",
		Rationale: noAuthRationale + " The management API reads and publishes messages and manages users.",
		Description: "The RabbitMQ management API returned the broker overview to a request without credentials (an " +
			"authenticating proxy in front of it, or a plugin that disables authentication): anyone reads and " +
			"publishes messages and manages users and permissions.",
		Remediation: endpointFirewallFix + " Require credentials on the management API, remove the guest user and " +
			"any proxy that injects credentials.",
		References: []string{"https://www.rabbitmq.com/docs/management#permissions", refCWE306},
	})
)

func init() {
	traits[ConsulNoAuth.Code] = TraitNoAuth
	traits[KubeletNoAuth.Code] = TraitNoAuth
	traits[KubernetesAPINoAuth.Code] = TraitNoAuth
	traits[JenkinsNoAuth.Code] = TraitNoAuth
	traits[SolrNoAuth.Code] = TraitNoAuth | TraitDatabase
	traits[CouchDBNoAuth.Code] = TraitNoAuth | TraitDatabase
	traits[RabbitMQNoAuth.Code] = TraitNoAuth
	traits[EtcdExposed.Code] = TraitDatabase
	databases[CouchDBNoAuth.Code] = "CouchDB"
	databases[SolrNoAuth.Code] = "Solr"
	databases[EtcdExposed.Code] = "etcd"
}
