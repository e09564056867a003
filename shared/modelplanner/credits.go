package modelplanner

import "strings"

// Rate is what a model family's tokens cost: how many input tokens, and how
// many output tokens, buy one credit (CONTRACT "Tiers and credits").
type Rate struct {
	Family                          string
	InputPerCredit, OutputPerCredit int
}

// Rates is the published table, by family; a model id matches the first
// family whose name it contains, and any other model costs DefaultRate.
var Rates = []Rate{
	{Family: "haiku", InputPerCredit: 20000, OutputPerCredit: 4000},
	{Family: "sonnet", InputPerCredit: 4000, OutputPerCredit: 800},
	{Family: "opus", InputPerCredit: 800, OutputPerCredit: 160},
}

// DefaultRate prices every other model (self-hosted ones included).
var DefaultRate = Rate{Family: "other", InputPerCredit: 10000, OutputPerCredit: 2000}

// RateOf is the rate of a model id.
func RateOf(model string) Rate {
	m := strings.ToLower(model)
	for _, r := range Rates {
		if strings.Contains(m, r.Family) {
			return r
		}
	}
	return DefaultRate
}

// Credits is what u costs at r: the two token counts at their prices,
// rounded up, and at least 1 (a call is never free).
func (r Rate) Credits(u Usage) int {
	in, out := max(u.InputTokens, 0), max(u.OutputTokens, 0)
	den := r.InputPerCredit * r.OutputPerCredit
	c := (in*r.OutputPerCredit + out*r.InputPerCredit + den - 1) / den
	return max(c, 1)
}
