package planner_test

import (
	"context"
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
	for i := range 1000 {
		d, err := p.Next(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if d.Done {
			return st.Steps
		}
		tool, _ := p.Tools.Get(d.Tool)
		st.Scan.CreditsUsed += tool.Cost()
		step := scans.Step{Seq: i + 1, Tool: d.Tool, Input: d.Input, Status: scans.StepOK, Credits: tool.Cost()}
		if d.Tool == planner.TLSCheck {
			var in struct {
				Host string   `json:"host"`
				Port int      `json:"port"`
				Also []string `json:"also"`
			}
			if err := json.Unmarshal(d.Input, &in); err != nil {
				t.Fatal(err)
			}
			for _, h := range append([]string{in.Host}, in.Also...) {
				step.Services = append(step.Services, scans.Service{Host: h, Port: in.Port, Name: "https"})
			}
		}
		st.Steps = append(st.Steps, step)
	}
	t.Fatal("the plan does not end")
	return nil
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
	var plain []scans.Step
	for _, s := range run(t, p, st) {
		tool, _ := p.Tools.Get(s.Tool)
		s.Credits = tool.Cost()
		plain = append(plain, s)
	}
	if c, n := credits(covering), credits(plain); c != n-2*5 {
		t.Errorf("%d credits with the aliases covered, %d without; want two tls_check calls (10 credits) fewer", c, n)
	}
}
