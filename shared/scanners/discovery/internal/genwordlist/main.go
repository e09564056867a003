// Command genwordlist writes wordlist_deep.txt, the deep tier's list of
// subdomain labels (go generate in shared/scanners/discovery).
//
// Where the labels come from: the standard list (wordlist.txt) first, so the
// deep list is a superset of it; then single labels that rank high in every
// well-known public subdomain list (SecLists' subdomains-top1million-5000,
// itself from Rapid7's Forward DNS data; Assetnote's commonspeak2; the
// top of jhaddix's all.txt), hand-picked here rather than copied, and last
// the patterns those lists are full of: numbered hosts (mail2, ns3, web01),
// environment and service pairs (dev-api, api-staging) and regional
// prefixes (eu-api, us-east). Duplicates are dropped, order is kept: the
// likeliest labels come first, so a call cut short by its time bound has
// tried those.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// common are single labels found near the top of the public lists.
var common = strings.Fields(`
www mail ftp localhost webmail smtp webdisk pop cpanel whm ns1 ns2 autodiscover autoconfig ns m imap test ns3 blog
pop3 dev www2 admin forum news vpn ns4 mail2 mysql old lists support mobile mx static docs beta shop secure demo cp
calendar wiki web media email images img www1 intranet portal video sip dns2 api cdn stats dns1 ns5 online www3
stage stg mx1 office store chat forums crm exchange search owa en de fr es it nl ru pl jp cn br app apps host
remote server mx2 sms ws vip ssl help sites admin2 gw dns my ftp2 staging a b c d e f go home info ad partners
download backup lyncdiscover meet sso dialin lync sip2 access sales marketing mail1 mail3 members member club
private public shop2 store2 events event tv radio music photo photos pics pic gallery files file cloud storage
assets asset cdn1 cdn2 cdn3 s1 s2 s3 static1 static2 img1 img2 images2 js css fonts font upload uploads dl
downloads mirror mirrors update updates repo packages pkg pypi npm maven gems apt yum deb rpm
api-docs developer developers devportal sandbox partner affiliates affiliate reseller resellers b2b b2c
id login signin signup register auth oauth oauth2 openid sso2 saml adfs sts idp accounts account profile
billing pay payment payments checkout cart order orders invoice invoices subscribe subscription subscriptions
status health healthcheck uptime monitor monitoring nagios zabbix icinga grafana prometheus alertmanager
kibana elastic elasticsearch logstash graylog splunk sentry newrelic datadog apm trace tracing jaeger zipkin
metrics stats2 analytics ga tag tags tagmanager pixel tracking click clicks links link go2 redirect r t u
mailgun sendgrid mandrill smtp2 smtp3 mailer mailing newsletter news2 lists2 list listserv mailman majordomo
imap2 pop2 mx3 mx4 mx5 relay mailrelay mta mta1 mta2 smtpout outbound inbound spam antispam filter mailfilter
webmail2 roundcube squirrelmail horde zimbra owa2 exchange2 ews autodiscover2 mapi outlook activesync
vpn2 vpn3 openvpn wireguard ipsec sslvpn anyconnect fortigate forti paloalto globalprotect pulse junos
citrix xen ctx storefront netscaler rdweb rdgateway rdp ts terminal tsweb remote2 remoteapp vdi horizon view
firewall fw fw1 router gateway gw1 gw2 switch core edge border proxy proxy1 proxy2 squid socks cache2
lb lb1 lb2 haproxy nginx apache iis tomcat jboss weblogic websphere glassfish wildfly jetty
jenkins ci ci2 cd build builds builder drone travis circleci teamcity bamboo gocd concourse argo argocd
gitlab github git git2 gitea gogs bitbucket stash svn hg cvs scm code review gerrit phabricator crucible fisheye
jira confluence wiki2 redmine trac youtrack mantis bugzilla bugs bug issues tracker tickets ticket helpdesk
servicedesk desk zendesk freshdesk otrs kayako support2 help2 faq kb knowledgebase docs2 documentation manual
sonar sonarqube nexus artifactory registry docker hub harbor quay images3 containers k8s kube kubernetes
rancher openshift okd console console2 dashboard dash panel controlpanel manage manager management mgmt
admin1 administrator admins root sysadmin ops devops sre infra infrastructure platform noc soc
db db1 db2 db3 database mysql1 mysql2 mariadb postgres postgresql pg pgsql sql sql1 sql2 mssql oracle ora
mongo mongodb couchdb couch cassandra redis redis1 memcache memcached rabbit rabbitmq mq amqp kafka zookeeper
zk queue jobs worker workers cron scheduler batch etl airflow spark hadoop hdfs hive presto
ldap ldap1 ldap2 ldaps ad1 ad2 dc dc1 dc2 dc3 domain kerberos kdc radius tacacs nps pki ca crl ocsp cert certs
vault secrets keys kms hsm keycloak okta ping pingfederate duo mfa 2fa otp
ntp time time1 time2 syslog log logs logging loghost
nfs nas san backup2 backups bak bk archive archives dr drs recovery replica replication standby failover
dev1 dev2 dev3 develop development devel devtest qa qa1 qa2 uat uat1 uat2 test1 test2 test3 testing tst
staging1 staging2 stage1 stage2 preprod pre-prod preproduction prod production prd live sandbox1 sandbox2
demo1 demo2 demos preview previews canary alpha beta1 beta2 rc release next new old2 legacy classic v1 v2 v3 v4
int integration internal internal-api external ext extranet corp corporate hq office2 branch
intra intranet2 portal2 portal1 employee employees staff hr hris payroll finance accounting erp sap
crm2 salesforce sugar hubspot dynamics odoo
cms wordpress wp drupal joomla magento shopify prestashop opencart typo3 umbraco sitecore ghost
blog2 blogs news3 press media2 pr about careers jobs2 career recruiting talent
shop3 store3 ecommerce market marketplace catalog catalogue products product deals promo promotions offers
coupon coupons gift gifts rewards loyalty points
community forum2 board boards discuss discussion social connect chat2 im xmpp jabber irc matrix slack mattermost
rocket teams zoom webex meet2 conference conf video2 stream streaming live2 broadcast webinar webinars
learn learning training academy edu education courses course lms moodle university school students student
library research lab labs science data bigdata datalake warehouse dwh bi reports report reporting tableau
powerbi looker metabase superset redash
mobile2 m2 wap iphone ios android app2 apps2 api2 api3 api-v1 api-v2 rest restapi graphql grpc ws2 websocket
socket realtime push notify notifications notification events2 webhook webhooks callback callbacks hooks
gateway2 api-gateway apigw edge2 origin origin2 origin-www cdn-origin static-origin
s3 bucket buckets objects blob blobs minio storage2 files2 share shared fileshare dropbox box owncloud nextcloud
sftp ftps ftp1 ftp3 upload2 transfer exchange3 dav webdav
calendar2 cal caldav carddav contacts directory phonebook phone tel voip pbx asterisk freepbx sip1 sipexternal
fax print printer printers scan scanner
cam camera cameras cctv nvr dvr iot sensor sensors scada plc hmi
guest wifi wireless radius2 captive hotspot
test-api dev-api staging-api stage-api qa-api uat-api prod-api api-dev api-test api-staging api-stage api-qa api-uat api-prod
`)

// numbered are roles commonly numbered (mail2, ns3, web01).
var numbered = strings.Fields(`www mail ns mx smtp web app api db dev test vpn srv server host node proxy lb cdn
static img ftp git ci build mon backup dc ad exchange owa portal admin staging qa uat demo sandbox cache search
worker kube k8s master slave replica edge gw fw rtr sw`)

// envs and services make environment-service pairs (dev-api, api-dev).
var envs = strings.Fields(`dev test staging stage stg qa uat prod preprod demo sandbox beta int internal old new`)
var services = strings.Fields(`api app www admin portal web auth login sso dashboard db cdn static gateway console
mail git jenkins grafana kibana shop m mobile search docs assets media files upload backend frontend`)

// regions prefix the most common labels (eu-api, us-east).
var regions = strings.Fields(`us eu uk de fr nl it es ch se no fi dk pl ie at be ca au nz jp cn hk sg in br mx za
asia apac emea latam na sa us-east us-west us-central eu-west eu-central eu-north ap-southeast ap-northeast
east west north south central`)
var regional = []string{"", "-www", "-api", "-app", "-cdn", "-mail", "-vpn", "-portal", "-static", "-shop"}

var label = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

func main() {
	std, err := os.ReadFile("wordlist.txt")
	if err != nil {
		fail(err)
	}
	out := deepLabels(std)
	if err := write("wordlist_deep.txt", out); err != nil {
		fail(err)
	}
	fmt.Printf("wordlist_deep.txt: %d labels\n", len(out))
}

// deepLabels are the standard list's labels, then the generated ones, each
// once; an invalid label fails.
func deepLabels(std []byte) []string {
	seen := map[string]bool{}
	var out []string
	add := func(l string) {
		if !label.MatchString(l) {
			fail(fmt.Errorf("invalid label %q", l))
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(string(std)))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			add(l)
		}
	}
	for _, l := range generated() {
		add(l)
	}
	return out
}

// generated are the hand-picked labels, numbered hosts,
// environment-service pairs and regional prefixes, in that order.
func generated() []string {
	out := slices.Clone(common)
	for _, r := range numbered {
		for i := 1; i <= 9; i++ {
			out = append(out, fmt.Sprintf("%s%d", r, i))
		}
		for i := 1; i <= 4; i++ {
			out = append(out, fmt.Sprintf("%s0%d", r, i), fmt.Sprintf("%s-%d", r, i))
		}
	}
	for _, e := range envs {
		for _, s := range services {
			out = append(out, e+"-"+s, s+"-"+e, e+s)
		}
	}
	for _, r := range regions {
		for _, suf := range regional {
			out = append(out, r+suf)
		}
	}
	return out
}

// write writes the list with its header to path.
func write(path string, out []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# The deep tier's subdomain labels (%d), generated by internal/genwordlist: do not edit.\n", len(out))
	fmt.Fprintln(w, "# The standard list (wordlist.txt) first, then labels near the top of the well-known public")
	fmt.Fprintln(w, "# lists (SecLists' subdomains-top1million-5000 from Rapid7 Forward DNS, Assetnote commonspeak2),")
	fmt.Fprintln(w, "# hand-picked, then numbered hosts, environment-service pairs and regional prefixes.")
	for _, l := range out {
		fmt.Fprintln(w, l)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genwordlist:", err)
	os.Exit(1)
}
