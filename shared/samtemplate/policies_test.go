package samtemplate_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"secscan/shared/samtemplate"
)

// The functions that run a scan and deliver its webhook never hold the
// whole table (issue 23, item 9): every statement is confined to partitions
// by dynamodb:LeadingKeys, none reaches authentication's items, and in the
// user's partition they write only the attributes of a scan record (and, for
// the agent, of a target's ownership check), never a PROFILE's plan or admin
// flag; the webhook secret's partition is the webhook function's alone.
func TestScanFunctionsCannotPromoteOrReadSecrets(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Partition keys of every item kind (shared/store package doc).
	user, secret, credits := "USER#usr_01", "WEBHOOK_SECRET#usr_01", "CREDITS#usr_01"
	forbiddenPartitions := []string{"TOKEN#abc", "IDENTITY#https://idp sub", "EMAIL#a@example.com", "AUTHFAIL#192.0.2.1"}
	forbiddenAttributes := []string{"plan", "is_admin", "email", "secret", "version", "hash", "user_id", "rate"}

	type want struct {
		secret, credits bool // may touch these partitions at all
	}
	for fn, w := range map[string]want{
		"ScanStepFunction":  {},
		"ScanAgentFunction": {credits: true},
		"WebhookFunction":   {secret: true},
		"RunRetestFunction": {credits: true},
	} {
		statements, err := tpl.TableStatements(fn)
		if err != nil {
			t.Fatal(err)
		}
		if len(statements) == 0 {
			t.Fatalf("%s: no DynamoDB statements found", fn)
		}
		for i, st := range statements {
			if len(st.LeadingKeys) == 0 {
				t.Errorf("%s statement %d: %v on the whole table, without dynamodb:LeadingKeys", fn, i, st.Actions)
				continue
			}
			matches := func(pk string) bool {
				return slices.ContainsFunc(st.LeadingKeys, func(p string) bool { ok, _ := filepath.Match(p, pk); return ok })
			}
			for _, pk := range forbiddenPartitions {
				if matches(pk) {
					t.Errorf("%s statement %d reaches %s", fn, i, pk)
				}
			}
			if matches(secret) && !w.secret {
				t.Errorf("%s statement %d reaches the webhook secret", fn, i)
			}
			if matches(credits) && !w.credits {
				t.Errorf("%s statement %d reaches the credit counters", fn, i)
			}
			if matches(credits) && !slices.Equal(st.Actions, []string{"dynamodb:UpdateItem"}) {
				t.Errorf("%s statement %d: %v on the credit counters, want UpdateItem only", fn, i, st.Actions)
			}
			if !matches(user) {
				continue
			}
			// In the user's partition: reads, and writes of listed attributes only.
			for _, a := range st.Actions {
				switch a {
				case "dynamodb:GetItem":
					if st.Attributes != nil {
						t.Errorf("%s statement %d: reads are granted apart from attribute-limited writes", fn, i)
					}
				case "dynamodb:UpdateItem":
					if st.Attributes == nil {
						t.Errorf("%s statement %d: UpdateItem on USER#* without dynamodb:Attributes", fn, i)
					}
				default:
					t.Errorf("%s statement %d: %s on USER#* (a put or delete could replace a PROFILE)", fn, i, a)
				}
			}
			for _, a := range forbiddenAttributes {
				if slices.Contains(st.Attributes, a) {
					t.Errorf("%s statement %d may write %q in the user's partition", fn, i, a)
				}
			}
			if st.Attributes != nil && (!slices.Contains(st.Attributes, "pk") || !slices.Contains(st.Attributes, "sk")) {
				t.Errorf("%s statement %d: dynamodb:Attributes must list the key attributes", fn, i)
			}
		}
	}
	// The scan step, where the tools' parsers run, holds the least: the
	// step's charge and counters, and the step it is running (current_step).
	statements, _ := tpl.TableStatements("ScanStepFunction")
	for _, st := range statements {
		if st.Attributes == nil {
			continue
		}
		for _, a := range st.Attributes {
			if !slices.Contains([]string{"pk", "sk", "status", "credits_used", "charged_seq", "steps_count", "findings_count", "issues_count",
				"current_tool", "current_started_at"}, a) &&
				!strings.HasPrefix(a, "#") {
				t.Errorf("ScanStepFunction may write %q", a)
			}
		}
	}
}

// The two functions that start a schedule's scan (RunScheduleFunction, run
// now; ScheduledScanFunction, EventBridge Scheduler's) never hold the whole
// table either: every statement is confined by dynamodb:LeadingKeys to the
// partitions they use, so neither reaches the webhook secret, a scan's
// steps and findings, a target's ledger or a retest; the credit counters
// they only update (the reservation), the schedule pointer the scheduled
// one only reads, and only run now, an API endpoint, reaches
// authentication's items.
func TestScheduleRunFunctionsReachOnlyTheirPartitions(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	never := []string{"WEBHOOK_SECRET#usr_01", "SCAN#scn_01", "TARGET#tgt_01", "RETEST#rt_01"}
	authentication := []string{"TOKEN#abc", "IDENTITY#https://idp sub", "EMAIL#a@example.com", "AUTHFAIL#192.0.2.1"}
	for fn, authenticates := range map[string]bool{"RunScheduleFunction": true, "ScheduledScanFunction": false} {
		statements, err := tpl.TableStatements(fn)
		if err != nil {
			t.Fatal(err)
		}
		if len(statements) == 0 {
			t.Fatalf("%s: no DynamoDB statements found", fn)
		}
		reached := map[string]bool{}
		for i, st := range statements {
			if len(st.LeadingKeys) == 0 {
				t.Errorf("%s statement %d: %v on the whole table, without dynamodb:LeadingKeys", fn, i, st.Actions)
				continue
			}
			matches := func(pk string) bool {
				ok := slices.ContainsFunc(st.LeadingKeys, func(p string) bool { ok, _ := filepath.Match(p, pk); return ok })
				reached[pk] = reached[pk] || ok
				return ok
			}
			for _, pk := range never {
				if matches(pk) {
					t.Errorf("%s statement %d reaches %s", fn, i, pk)
				}
			}
			for _, pk := range authentication {
				if matches(pk) && !authenticates {
					t.Errorf("%s statement %d reaches %s, an item of authentication", fn, i, pk)
				}
			}
			if matches("CREDITS#usr_01") && !slices.Equal(st.Actions, []string{"dynamodb:UpdateItem"}) {
				t.Errorf("%s statement %d: %v on the credit counters, want UpdateItem only", fn, i, st.Actions)
			}
			if matches("SCHEDULE#sch_01") && !slices.Equal(st.Actions, []string{"dynamodb:GetItem"}) {
				t.Errorf("%s statement %d: %v on the schedule pointers, want GetItem only", fn, i, st.Actions)
			}
			matches("USER#usr_01")
			if slices.Contains(st.Actions, "dynamodb:DeleteItem") {
				t.Errorf("%s statement %d grants DeleteItem, which no run makes", fn, i)
			}
		}
		// What a run needs: the user's partition and the month's credits.
		for _, pk := range []string{"USER#usr_01", "CREDITS#usr_01"} {
			if !reached[pk] {
				t.Errorf("%s reaches no %s", fn, pk)
			}
		}
	}
}
