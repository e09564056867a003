package planner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"secscan/shared/scans"
)

// maxTLSAlso bounds the names one tls_check call covers (its input's
// "also", at most 8).
const maxTLSAlso = 8

// tlsCalls is the tls_check of h's TLS service on port, once per address,
// port and certificate: the names that share h's address and serve TLS on
// port form a group; its first name (in plan order) gets the call, with the
// others as "also" (the tool covers each that presents the same
// certificate with one handshake, its findings naming them too). The
// others get no call while the first's has not run, none when it covered
// them, and a call of their own when it did not (another certificate, or
// the call failed).
func tlsCalls(s State, hosts []scans.Host, h scans.Host, port int) []Call {
	own := Call{Tool: TLSCheck, Host: h.Name, Why: fmt.Sprintf("TLS service on %s:%d", h.Name, port),
		Input: encode(map[string]any{"host": h.Name, "port": port})}
	group := tlsGroup(s, hosts, h, port)
	if len(group) < 2 {
		return []Call{own}
	}
	covered, ran, input := tlsCovered(s.Steps, group[0], h.Name, port)
	if group[0] == h.Name {
		return []Call{leaderCall(own, group, port, ran, input)}
	}
	if slices.Index(group, h.Name) > maxTLSAlso {
		return []Call{own}
	}
	if !ran || covered {
		return nil
	}
	return []Call{own}
}

// leaderCall is the group leader's call own: the call made, when it ran
// (names that joined the group since get their own), else one for the
// names of the group as "also".
func leaderCall(own Call, group []string, port int, ran bool, input json.RawMessage) Call {
	if ran {
		own.Input = input
		return own
	}
	also := group[1:min(len(group), maxTLSAlso+1)]
	own.Why = fmt.Sprintf("TLS service on %s:%d, once for the names on the same address that present the same certificate (%s)",
		own.Host, port, strings.Join(also, ", "))
	own.Input = encode(map[string]any{"host": own.Host, "port": port, "also": also})
	return own
}

// tlsGroup is the names of hosts (in order) that share h's address and
// have a TLS service on port: h's group when it has more than one name.
func tlsGroup(s State, hosts []scans.Host, h scans.Host, port int) []string {
	addr := firstAddress(h)
	if len(h.Addresses) == 0 || h.CNAME != "" {
		return nil
	}
	var group []string
	for _, o := range hosts {
		if o.CNAME != "" || firstAddress(o) != addr {
			continue
		}
		if servesTLS(servicesOf(s.Surface, o), port) {
			group = append(group, o.Name)
		}
	}
	return group
}

// servesTLS reports whether one of svcs is a TLS service on port.
func servesTLS(svcs []scans.ServiceInfo, port int) bool {
	return slices.ContainsFunc(svcs, func(v scans.ServiceInfo) bool { return v.Port == port && scans.TLSProtocol(v.Protocol) })
}

// tlsCovered reports whether a tls_check of the group leader's port has
// run (and its input) and whether it covered name: the tool adds a service
// entry for each name of its "also" that it covers (a failed call covers
// none).
func tlsCovered(steps []scans.Step, leader, name string, port int) (covered, ran bool, input json.RawMessage) {
	for _, st := range steps {
		if !isTLSCheckOf(st, leader, strconv.Itoa(port)) {
			continue
		}
		ran, input = true, st.Input
		covered = covered || coversService(st, name, port)
	}
	return covered, ran, input
}

// isTLSCheckOf reports whether st is a tls_check of host:port.
func isTLSCheckOf(st scans.Step, host, port string) bool {
	if st.Tool != TLSCheck {
		return false
	}
	var in struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	}
	return json.Unmarshal(st.Input, &in) == nil && strings.EqualFold(in.Host, host) && strconv.Itoa(in.Port) == port
}

// coveringTLSStep is the outcome of the successful tls_check that covered
// host:port as an alias of another name, "" when none did.
func coveringTLSStep(steps []scans.Step, host, port string) string {
	p, err := strconv.Atoi(port)
	if err != nil {
		return ""
	}
	for _, st := range steps {
		if st.Tool == TLSCheck && coversService(st, host, p) {
			return st.Outcome
		}
	}
	return ""
}

// coversService reports whether st ended ok with a service entry for
// host:port.
func coversService(st scans.Step, host string, port int) bool {
	return st.Status == scans.StepOK && slices.ContainsFunc(st.Services, func(v scans.Service) bool {
		return strings.EqualFold(v.Host, host) && v.Port == port
	})
}
