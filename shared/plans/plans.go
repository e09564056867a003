// Package plans holds the commercial rules of CONTRACT.md: which tiers,
// report formats and features each plan has, and the credit ceiling of each
// tier. Everything that asks "may this user do X" asks here.
package plans

import "slices"

// Plan is a subscription plan (the user's `plan` field).
type Plan string

// The plans, cheapest first.
const (
	Free       Plan = "free"
	Starter    Plan = "starter"
	Pro        Plan = "pro"
	Enterprise Plan = "enterprise"
)

// All lists the plans in ascending order.
var All = []Plan{Free, Starter, Pro, Enterprise}

// Valid reports whether p names a plan.
func Valid(p string) bool { return slices.Contains(All, Plan(p)) }

// Tier is a scan depth.
type Tier string

// The tiers.
const (
	Quick    Tier = "quick"
	Standard Tier = "standard"
	Deep     Tier = "deep"
)

// CreditCeiling is each tier's max_credits ceiling (and default).
var CreditCeiling = map[Tier]int{Quick: 50, Standard: 200, Deep: 1000}

// AllowsTier reports whether the plan may run scans of tier t.
func (p Plan) AllowsTier(t Tier) bool {
	if t == Deep {
		return p == Pro || p == Enterprise
	}
	return Valid(string(p))
}

// CheapestAllowing names the cheapest plan that allows tier t, for 403 details.
func CheapestAllowing(t Tier) Plan {
	for _, p := range All {
		if p.AllowsTier(t) {
			return p
		}
	}
	return Enterprise
}

// IsPaid reports whether the plan is above free.
func (p Plan) IsPaid() bool { return Valid(string(p)) && p != Free }

// CanMintTokens: the free plan cannot create API tokens.
func (p Plan) CanMintTokens() bool { return p.IsPaid() }

// HasWebhooks: webhooks start at starter; on free, callback_url is ignored.
func (p Plan) HasWebhooks() bool { return p.IsPaid() }

// AllowsReportFormat reports whether the plan may download format (md, html, pdf, csv).
func (p Plan) AllowsReportFormat(format string) bool {
	switch format {
	case "md", "html":
		return Valid(string(p))
	case "pdf", "csv":
		return p.IsPaid()
	}
	return false
}

// ReportRetentionDays is how long reports stay downloadable; 0 means forever.
func (p Plan) ReportRetentionDays() int {
	if p == Free {
		return 7
	}
	return 0
}

// MonthlyAllowance is the plan's credit allowance per calendar month (UTC);
// limited is false for enterprise (no limit). An unknown plan gets the free
// allowance.
func (p Plan) MonthlyAllowance() (credits int, limited bool) {
	switch p {
	case Starter:
		return 20_000, true
	case Pro:
		return 100_000, true
	case Enterprise:
		return 0, false
	}
	return 2_000, true
}

// UsesModel reports whether scans on the plan may be planned by a model:
// starter and above. Free scans run the deterministic playbook even when
// AGENT_MODEL_* names a model, so self sign-ups cannot spend model tokens.
func (p Plan) UsesModel() bool { return p.IsPaid() }

// Cadence is how often a schedule runs its scan.
type Cadence string

// The cadences, most frequent first.
const (
	Daily   Cadence = "daily"
	Weekly  Cadence = "weekly"
	Monthly Cadence = "monthly"
)

// Cadences lists the cadences, most frequent first.
var Cadences = []Cadence{Daily, Weekly, Monthly}

// ValidCadence reports whether c names a cadence.
func ValidCadence(c string) bool { return slices.Contains(Cadences, Cadence(c)) }

// MaxSchedules is how many schedules the plan may hold (CONTRACT "Plans"):
// free none, starter 3, pro 20, enterprise 100.
func (p Plan) MaxSchedules() int {
	switch p {
	case Starter:
		return 3
	case Pro:
		return 20
	case Enterprise:
		return 100
	}
	return 0
}

// AllowsCadence reports whether schedules of the plan may run at cadence c:
// starter weekly and monthly, pro and enterprise also daily, free none.
func (p Plan) AllowsCadence(c Cadence) bool {
	switch p {
	case Starter:
		return c == Weekly || c == Monthly
	case Pro, Enterprise:
		return ValidCadence(string(c))
	}
	return false
}

// CheapestAllowingCadence names the cheapest plan whose schedules may run at c.
func CheapestAllowingCadence(c Cadence) Plan {
	for _, p := range All {
		if p.AllowsCadence(c) {
			return p
		}
	}
	return Enterprise
}

// CheapestAllowingSchedules names the cheapest plan that holds n schedules.
func CheapestAllowingSchedules(n int) Plan {
	for _, p := range All {
		if p.MaxSchedules() >= n {
			return p
		}
	}
	return Enterprise
}
