package planner_test

import (
	"encoding/json"
	"slices"
	"testing"

	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/scanners"
	"secscan/shared/scans"
)

// runCovering is run, with tls_check steps that cover every name of their
// "also" (as the tool does when they present the same certificate): a
// service entry per name.
func runCovering(t *testing.T, p planner.Playbook, st planner.State) []scans.Step {
	t.Helper()
	return runWith(t, p, st, coverTLS)
}

// coverTLS adds to a tls_check step a service entry for its host and each
// name of its "also".
func coverTLS(t *testing.T, step *scans.Step) {
	if step.Tool != planner.TLSCheck {
		return
	}
	var in struct {
		Host string   `json:"host"`
		Port int      `json:"port"`
		Also []string `json:"also"`
	}
	if err := json.Unmarshal(step.Input, &in); err != nil {
		t.Fatal(err)
	}
	for _, h := range append([]string{in.Host}, in.Also...) {
		step.Services = append(step.Services, scans.Service{Host: h, Port: in.Port, Name: "https"})
	}
}

func credits(steps []scans.Step) (n int) {
	for _, s := range steps {
		n += s.Credits
	}
	return n
}

// Names that share an address and present the same certificate are
// TLS-checked once: the first name's call covers the others, which get no
// call of their own, and the scan costs a tls_check less per name covered.
func TestTLSCheckOncePerAddressAndCertificate(t *testing.T) {
	t.Parallel()
	p := planner.Playbook{Tools: scanners.Registry()}
	st := stateOf(scans.Full, plans.Standard, 1000, surface())
	covering := runCovering(t, p, st)
	got := calls(covering, planner.TLSCheck)
	want := []string{`{"also":["legacy.example.com","www.example.com"],"host":"example.com","port":443}`, `{"host":"api.example.com","port":8443}`}
	if !slices.Equal(got, want) {
		t.Errorf("tls_check calls %v, want %v", got, want)
	}
	if c, n := credits(covering), credits(run(t, p, st)); c != n-2*5 {
		t.Errorf("%d credits with the aliases covered, %d without; want two tls_check calls (10 credits) fewer", c, n)
	}
}
