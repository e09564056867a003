package agenteval

import (
	"fmt"
	"io"
	"strings"
	"time"

	"secscan/shared/modelplanner"
)

// Result is what one scan found and cost.
type Result struct {
	// Planner is "playbook" or "model: <id>" ("model: scripted").
	Planner string
	// Model is the model id ("" for the playbook).
	Model  string
	Status string
	Error  string
	// Findings, Issues and Promotions (tentative findings a certain one
	// confirms) of the scan.
	Findings, Issues, Promotions int
	Credits, MaxCredits          int
	InputTokens, OutputTokens    int
	// Price is the model's token price; Priced false when the model is not
	// in Prices.
	Price  Price
	Priced bool
	Wall   time.Duration
	// Refused is the model's proposals refused (refused steps with a model).
	Refused int
	// ModelSteps are the steps whose call the model chose (write_summary
	// included).
	ModelSteps int
	// ModelCredits is what the model's calls cost in credits (per call, at
	// the family's published rate), part of Credits.
	ModelCredits int
}

// Dollars is the estimated cost of the tokens at Price.
func (r Result) Dollars() float64 {
	return (float64(r.InputTokens)*r.Price.InputPerMillion + float64(r.OutputTokens)*r.Price.OutputPerMillion) / 1e6
}

func resultOf(p plannerSetup, r record, wall time.Duration) Result {
	out := Result{Planner: p.label, Model: p.model, Status: r.Status, Findings: len(r.Findings), Issues: len(r.Issues),
		Promotions: r.promotions(), Credits: r.CreditsUsed, MaxCredits: r.MaxCredits, Wall: wall}
	if out.Planner == "" {
		out.Planner = "playbook"
	}
	if r.Error != nil {
		out.Error = *r.Error
	}
	for _, st := range r.Steps {
		if st.Model == nil {
			continue
		}
		out.InputTokens += st.Model.InputTokens
		out.OutputTokens += st.Model.OutputTokens
		out.ModelCredits += modelplanner.RateOf(p.model).Credits(modelplanner.Usage{InputTokens: st.Model.InputTokens, OutputTokens: st.Model.OutputTokens})
		if !strings.HasPrefix(st.Reasoning, "Planned by the playbook") {
			out.ModelSteps++
		}
		if st.Status == "refused" {
			out.Refused++
		}
	}
	if p.model != "" {
		out.Price, out.Priced = PriceOf(p.model)
	}
	return out
}

// Price is a model's published on-demand token price in US dollars per
// million tokens.
type Price struct {
	Match                             string // a model id containing this
	InputPerMillion, OutputPerMillion float64
}

// Prices are approximate published on-demand prices (Amazon Bedrock, US
// regions, checked when this table was written); the first entry whose
// Match the model id contains applies. They are estimates for comparing
// models, not a bill: batch, provisioned throughput, caching and regional
// prices differ, and prices change.
var Prices = []Price{
	{"claude-3-5-haiku", 0.80, 4.00},
	{"claude-3-haiku", 0.25, 1.25},
	{"claude-3-5-sonnet", 3.00, 15.00},
	{"claude-3-7-sonnet", 3.00, 15.00},
	{"claude-sonnet-4", 3.00, 15.00},
	{"claude-3-opus", 15.00, 75.00},
	{"claude-opus-4", 15.00, 75.00},
	{"nova-micro", 0.035, 0.14},
	{"nova-lite", 0.06, 0.24},
	{"nova-pro", 0.80, 3.20},
	{"llama3-1-8b", 0.22, 0.22},
	{"llama3-1-70b", 0.72, 0.72},
}

// PriceOf is the price of a model id; false for a model not in Prices.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(model)
	for _, p := range Prices {
		if strings.Contains(m, p.Match) {
			return p, true
		}
	}
	return Price{}, false
}

// measures are the table's rows, in order: a label and a result's cell.
var measures = []struct {
	label string
	cell  func(Result) string
}{
	{"status", func(r Result) string {
		if r.Error != "" {
			return r.Status + ": " + r.Error
		}
		return r.Status
	}},
	{"findings", func(r Result) string { return fmt.Sprint(r.Findings) }},
	{"issues", func(r Result) string { return fmt.Sprint(r.Issues) }},
	{"tentative → certain", func(r Result) string { return fmt.Sprint(r.Promotions) }},
	{"credits used", func(r Result) string { return fmt.Sprintf("%d of %d", r.Credits, r.MaxCredits) }},
	{"model credits (tokens)", func(r Result) string { return fmt.Sprint(r.ModelCredits) }},
	{"tokens in / out", func(r Result) string { return fmt.Sprintf("%d / %d", r.InputTokens, r.OutputTokens) }},
	{"estimated cost (USD)", dollars},
	{"wall time", func(r Result) string { return r.Wall.Round(100 * time.Millisecond).String() }},
	{"refused proposals", func(r Result) string { return fmt.Sprint(r.Refused) }},
	{"steps chosen by the model", func(r Result) string { return fmt.Sprint(r.ModelSteps) }},
}

// Rows are the table's row labels, in order.
var Rows = func() []string {
	labels := make([]string, len(measures))
	for i, m := range measures {
		labels[i] = m.label
	}
	return labels
}()

// Table writes the results side by side as a Markdown table: one column per
// run, one row per measure.
func Table(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("| |")
	for _, r := range results {
		fmt.Fprintf(&b, " %s |", cell(r.Planner))
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(results)))
	b.WriteString("\n")
	for _, m := range measures {
		fmt.Fprintf(&b, "| %s |", m.label)
		for _, r := range results {
			fmt.Fprintf(&b, " %s |", cell(m.cell(r)))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dollars(r Result) string {
	switch {
	case r.Model == "":
		return "0 (no model)"
	case !r.Priced:
		return "unknown model: no published price in the table"
	}
	return fmt.Sprintf("%.4f (%s: $%.3g / $%.3g per M tokens in / out, approximate)", r.Dollars(), r.Price.Match,
		r.Price.InputPerMillion, r.Price.OutputPerMillion)
}

// cell keeps a value inside its Markdown cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
