package plans

import "testing"

// The plan table of CONTRACT.md, row by row.
func TestPlanTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		plan          Plan
		deep, mint    bool
		pdf, csv, md  bool
		retentionDays int
	}{
		{Free, false, false, false, false, true, 7},
		{Starter, false, true, true, true, true, 0},
		{Pro, true, true, true, true, true, 0},
		{Enterprise, true, true, true, true, true, 0},
	}
	for _, c := range cases {
		if got := c.plan.AllowsTier(Deep); got != c.deep {
			t.Errorf("%s deep = %v", c.plan, got)
		}
		if !c.plan.AllowsTier(Quick) || !c.plan.AllowsTier(Standard) {
			t.Errorf("%s must allow quick and standard", c.plan)
		}
		if got := c.plan.CanMintTokens(); got != c.mint {
			t.Errorf("%s mint = %v", c.plan, got)
		}
		if got := c.plan.HasWebhooks(); got != c.mint {
			t.Errorf("%s webhooks = %v", c.plan, got)
		}
		if c.plan.AllowsReportFormat("pdf") != c.pdf || c.plan.AllowsReportFormat("csv") != c.csv ||
			c.plan.AllowsReportFormat("md") != c.md || !c.plan.AllowsReportFormat("html") {
			t.Errorf("%s report formats wrong", c.plan)
		}
		if c.plan.AllowsReportFormat("docx") {
			t.Errorf("%s allows an unknown format", c.plan)
		}
		if got := c.plan.ReportRetentionDays(); got != c.retentionDays {
			t.Errorf("%s retention = %d", c.plan, got)
		}
	}
	if Plan("gold").AllowsTier(Quick) || Plan("gold").IsPaid() {
		t.Error("an unknown plan has rights")
	}
	if CheapestAllowing(Deep) != Pro || CheapestAllowing(Quick) != Free {
		t.Error("CheapestAllowing wrong")
	}
	if CreditCeiling[Quick] != 50 || CreditCeiling[Standard] != 200 || CreditCeiling[Deep] != 1000 {
		t.Errorf("credit ceilings %v", CreditCeiling)
	}
}

// The allowance table of CONTRACT "Plans": monthly credits and the model.
func TestMonthlyAllowanceAndModel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		plan    Plan
		credits int
		limited bool
		model   bool
	}{
		{Free, 2000, true, false},
		{Starter, 20000, true, true},
		{Pro, 100000, true, true},
		{Enterprise, 0, false, true},
		{Plan(""), 2000, true, false}, // a record without a plan is treated as free
	}
	for _, c := range cases {
		credits, limited := c.plan.MonthlyAllowance()
		if credits != c.credits || limited != c.limited {
			t.Errorf("%q allowance = %d, %v; want %d, %v", c.plan, credits, limited, c.credits, c.limited)
		}
		if got := c.plan.UsesModel(); got != c.model {
			t.Errorf("%q model = %v, want %v", c.plan, got, c.model)
		}
	}
}

func TestSchedulesPerPlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		plan    Plan
		max     int
		cadence map[Cadence]bool
	}{
		{Free, 0, map[Cadence]bool{}},
		{Starter, 3, map[Cadence]bool{Weekly: true, Monthly: true}},
		{Pro, 20, map[Cadence]bool{Daily: true, Weekly: true, Monthly: true}},
		{Enterprise, 100, map[Cadence]bool{Daily: true, Weekly: true, Monthly: true}},
	} {
		if got := tc.plan.MaxSchedules(); got != tc.max {
			t.Errorf("%s: %d schedules, want %d", tc.plan, got, tc.max)
		}
		for _, c := range Cadences {
			if got := tc.plan.AllowsCadence(c); got != tc.cadence[c] {
				t.Errorf("%s allows %s: %v", tc.plan, c, got)
			}
		}
	}
	if CheapestAllowingCadence(Daily) != Pro || CheapestAllowingCadence(Weekly) != Starter {
		t.Error("cheapest plan for a cadence")
	}
	if CheapestAllowingSchedules(4) != Pro || CheapestAllowingSchedules(21) != Enterprise || CheapestAllowingSchedules(1) != Starter {
		t.Error("cheapest plan for a count")
	}
}
