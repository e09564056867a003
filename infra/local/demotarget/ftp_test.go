package demotarget

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"secscan/shared/checks"
	"secscan/shared/netguard"
	"secscan/shared/resolver"
	"secscan/shared/scanners/discovery"
	"secscan/shared/scanners/ftpaudit"
	"secscan/shared/tools"
)

func demoEnv(t *testing.T, target *Target) tools.Env {
	t.Helper()
	res, err := resolver.New(target.DNSAddr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return tools.Env{Domain: target.Domain(), Resolver: res, Dialer: netguard.New(res, netguard.Policy{AllowPrivate: true}),
		Ports: tools.Ports{HTTP: 1, HTTPS: 1}}
}

// The FTP service greets like vsFTPd 2.3.4, is a real FTP server with
// anonymous access, refuses writes, and ftp_audit finds its planted files.
func TestFTPAnonymousArchive(t *testing.T) {
	t.Parallel()
	target := startTest(t, func(c *Config) { c.HTTPPort, c.HTTPSPort, c.MySQLPort, c.SSHPort, c.RedisPort = -1, -1, -1, -1, -1 })
	conn := dialService(t, target.FTPAddr())
	defer conn.Close()
	r := bufio.NewReader(conn)
	say := func(cmd string) string {
		if cmd != "" {
			if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
				t.Fatal(err)
			}
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", cmd, err)
		}
		return line
	}
	if got := say(""); got != FTPBanner {
		t.Errorf("banner %q, want %q", got, FTPBanner)
	}
	for _, step := range [][2]string{{"USER anonymous", "331"}, {"PASS guest@example.com", "230"}, {"MKD x", "550"}, {"DELE /customers.csv", "550"}} {
		if got := say(step[0]); !strings.HasPrefix(got, step[1]) {
			t.Errorf("%s → %q, want %s", step[0], got, step[1])
		}
	}

	_, port, _ := net.SplitHostPort(target.FTPAddr())
	p, _ := strconv.Atoi(port)
	in, _ := json.Marshal(map[string]any{"port": p})
	res, err := ftpaudit.New().Run(context.Background(), demoEnv(t, target), in)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Outcome)
	var sensitive string
	for _, f := range res.Findings {
		if f.Check == checks.FTPAnonymousSensitiveFile.Code {
			sensitive = f.Evidence
		}
	}
	for _, want := range []string{"/" + FTPCustomerFile, "/" + FTPBackupFile} {
		if !strings.Contains(sensitive, want) {
			t.Errorf("sensitive-file evidence %q lacks %s", sensitive, want)
		}
	}
}

// *.dev answers any name: discovery reports the wildcard on dev and keeps
// the names it answers out of the hosts.
func TestDNSWildcardUnderDev(t *testing.T) {
	t.Parallel()
	target := startTest(t, func(c *Config) {
		c.HTTPPort, c.HTTPSPort, c.MySQLPort, c.FTPPort, c.SSHPort, c.RedisPort = -1, -1, -1, -1, -1, -1
	})
	env := demoEnv(t, target)
	ips, err := env.Resolver.LookupIP(context.Background(), "anything-at-all."+WildcardLabel+"."+target.Domain())
	if err != nil || len(ips) != 1 || ips[0].String() != "127.0.0.1" {
		t.Errorf("a random name under dev: %v, %v", ips, err)
	}
	if _, err := env.Resolver.LookupIP(context.Background(), WildcardLabel+"."+target.Domain()); err == nil {
		t.Error("dev itself resolves")
	}
	if _, err := env.Resolver.LookupIP(context.Background(), "random-name."+target.Domain()); err == nil {
		t.Error("the apex has a wildcard too")
	}
	res, err := discovery.New().Run(context.Background(), env, json.RawMessage(`{"sources":["wordlist"]}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Outcome)
	if len(res.Findings) != 1 || res.Findings[0].Check != checks.DNSWildcard.Code || res.Findings[0].Host != WildcardLabel+"."+target.Domain() {
		t.Errorf("findings %+v", res.Findings)
	}
	for _, h := range res.Surface.Hosts {
		if strings.HasSuffix(h.Name, "."+WildcardLabel+"."+target.Domain()) {
			t.Errorf("phantom host %s", h.Name)
		}
	}
}
