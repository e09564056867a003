package followup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"secscan/shared/lazyre"
	"secscan/shared/scanners/internal/httpprobe"
	"secscan/shared/scans"
	"secscan/shared/tools"
)

// ServiceInfo is the service_info tool.
type ServiceInfo struct{ meta }

// NewServiceInfo returns the service_info tool.
func NewServiceInfo() tools.Tool {
	return &ServiceInfo{meta{
		name: "service_info",
		description: "Reads the version of a cache that answers without authentication, with one read-only command: " +
			"Redis `INFO server`, memcached `version`. The version is added to the surface and to the services " +
			"version_check reads. Use it on a Redis or memcached port port_scan reported as unauthenticated.",
		schema: hostPortSchema, cost: 2, timeout: 8 * time.Second,
	}}
}

const maxInfoBytes = 16 << 10

var (
	redisVersion     = lazyre.New(`(?m)^redis_version:(\S+)`)
	memcachedVersion = lazyre.New(`^VERSION (\S+)`)
)

// Run implements tools.Tool.
func (t *ServiceInfo) Run(ctx context.Context, env tools.Env, raw json.RawMessage) (tools.Result, error) {
	host, port, err := tools.DecodeHostPort(env, raw, 0)
	if err != nil {
		return tools.Result{}, err
	}
	if env.Dialer == nil {
		return tools.Result{}, errors.New("service_info: the environment has no dialer")
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout-time.Second)
	defer cancel()
	// A name aliased outside the scope is a third party's: no service probe.
	if _, err := env.ProbedHost(ctx, host); err != nil {
		return tools.Result{}, err
	}
	proto := cacheProtocol(env.Surface, port)
	conn, err := env.Dialer.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return tools.Result{}, fmt.Errorf("service_info %s:%d: %w", host, port, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	a, err := askVersion(conn, proto)
	if err != nil {
		return tools.Result{}, fmt.Errorf("service_info %s:%d: %w", host, port, err)
	}
	return a.result(host, port, remoteIP(conn)), nil
}

// cacheProtocol is the protocol the surface knows on port: memcached when
// it says so, Redis otherwise.
func cacheProtocol(surface scans.Surface, port int) string {
	for _, v := range surface.Services {
		if v.Port == port && v.Protocol == "memcached" {
			return "memcached"
		}
	}
	return "redis"
}

// remoteIP is the address conn reached ("" when it is not TCP).
func remoteIP(conn net.Conn) string {
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	return ""
}

// result is service_info's result for the answer of host:port (at
// address): the product and version it named, or why there is none.
func (a versionAnswer) result(host string, port int, address string) tools.Result {
	if a.refusal != "" {
		return tools.Result{Outcome: fmt.Sprintf("%s:%d refused INFO: %s", host, port, httpprobe.Clean(a.refusal, 120))}
	}
	product, version, said := a.product, a.version, a.said
	if version == "" {
		return tools.Result{Outcome: fmt.Sprintf("%s:%d answered without a version: %s", host, port, said)}
	}
	version = httpprobe.Clean(version, 40)
	name := strings.ToLower(product)
	return tools.Result{
		Outcome:  fmt.Sprintf("%s:%d is %s %s (read with one read-only command, no authentication asked)", host, port, product, version),
		Services: []scans.Service{{Host: host, Port: port, Name: name, Banner: product + " " + said}},
		Surface: scans.Surface{Services: []scans.ServiceInfo{{Host: host, Address: address, Port: port, Transport: "tcp",
			Protocol: name, Product: product, Version: version}}},
	}
}

// versionAnswer is what a cache said when asked its version: refusal is
// Redis's error answer to INFO, if any.
type versionAnswer struct {
	product, version, said, refusal string
}

// askVersion asks a Redis (INFO server) or memcached (version) service its
// version with one read-only command.
func askVersion(conn net.Conn, proto string) (versionAnswer, error) {
	if proto == "memcached" {
		a := versionAnswer{product: "memcached"}
		line, err := command(conn, "version\r\n", 256)
		if err != nil {
			return a, err
		}
		a.said = httpprobe.Clean(line, 120)
		if m := memcachedVersion.FindStringSubmatch(line); m != nil {
			a.version = m[1]
		}
		return a, nil
	}
	a := versionAnswer{product: "Redis"}
	reply, err := command(conn, "INFO server\r\n", maxInfoBytes)
	if err != nil {
		return a, err
	}
	if strings.HasPrefix(reply, "-") {
		a.refusal = reply
		return a, nil
	}
	if m := redisVersion.FindStringSubmatch(reply); m != nil {
		a.version = m[1]
		a.said = "redis_version:" + httpprobe.Clean(a.version, 40)
	}
	return a, nil
}

// command sends cmd and reads the answer: a RESP bulk string ($n\r\n…) or
// one line, at most limit bytes.
func command(conn net.Conn, cmd string, limit int) (string, error) {
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	r := bufio.NewReaderSize(io.LimitReader(conn, int64(limit)+64), 4096)
	first, err := r.ReadString('\n')
	if err != nil && first == "" {
		return "", err
	}
	first = strings.TrimRight(first, "\r\n")
	if !strings.HasPrefix(first, "$") {
		return first, nil
	}
	n, err := strconv.Atoi(first[1:])
	if err != nil || n < 0 {
		return first, nil
	}
	buf := make([]byte, min(n, limit))
	k, _ := io.ReadFull(r, buf)
	return string(buf[:k]), nil
}
