package modelplanner

import (
	"context"
	"log/slog"

	"secscan/shared/config"
	"secscan/shared/planner"
	"secscan/shared/plans"
	"secscan/shared/tools"
)

// FromConfig is the planner cfg asks for: the playbook alone when no tier
// has a model, else the model planner with the configured provider's
// client. Only the functions that plan call it, so only they link a model
// client.
func FromConfig(ctx context.Context, cfg config.Config, reg *tools.Registry, logger *slog.Logger) (planner.Planner, error) {
	playbook := planner.Playbook{Tools: reg}
	models := map[plans.Tier]string{plans.Quick: cfg.AgentModelQuick, plans.Standard: cfg.AgentModelStandard, plans.Deep: cfg.AgentModelDeep}
	if cfg.AgentModelQuick == "" && cfg.AgentModelStandard == "" && cfg.AgentModelDeep == "" {
		return playbook, nil
	}
	var client Client
	if cfg.AgentProvider == "openai" {
		client = NewOpenAI(cfg.AgentOpenAIBaseURL, cfg.AgentOpenAIAPIKey)
	} else {
		b, err := NewBedrock(ctx)
		if err != nil {
			return nil, err
		}
		client = b
	}
	return &Planner{Client: client, Models: models, Tools: reg, Playbook: playbook, Logger: logger}, nil
}
