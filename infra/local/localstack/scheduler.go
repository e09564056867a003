package localstack

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"secscan/infra/local/sfnlocal"
	"secscan/shared/api"
)

// ScheduledScanFunction is the template's function that EventBridge
// Scheduler invokes on AWS; the local ticker invokes its handler.
const ScheduledScanFunction = "ScheduledScanFunction"

// Scheduler is the local stack's stand-in for EventBridge Scheduler: every
// interval (LOCAL_SCHEDULER_INTERVAL, default 30 s) it looks for enabled
// schedules whose next_run_at has come and fires each through the handler
// ScheduledScanFunction runs on AWS (api.FireSchedule), as that function,
// so a run takes the same claim, limits and allowance as a deployed one.
// A run fires within one interval of its time (plus the run's own time),
// where a deployed one fires within the schedule's flexible window.
type Scheduler struct {
	stop context.CancelFunc
	done sync.WaitGroup
}

// StartScheduler fires a's due schedules every interval until Close.
func StartScheduler(ctx context.Context, a *api.API, interval time.Duration, logger *slog.Logger) *Scheduler {
	ctx, cancel := context.WithCancel(ctx)
	s := &Scheduler{stop: cancel}
	if logger == nil {
		logger = slog.Default()
	}
	s.done.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				FireDue(ctx, a, logger)
			}
		}
	})
	return s
}

// FireDue fires every schedule due now, one after another.
func FireDue(ctx context.Context, a *api.API, logger *slog.Logger) {
	due, err := a.Store.DueSchedules(ctx, a.Now())
	if err != nil {
		logger.WarnContext(ctx, "local scheduler: due schedules", "error", err.Error())
		return
	}
	as := lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		InvokedFunctionArn: sfnlocal.FunctionARN(ScheduledScanFunction)})
	for _, d := range due {
		if err := a.FireSchedule(as, api.ScheduledRun{ScheduleID: d.ID}); err != nil {
			logger.WarnContext(ctx, "local scheduler: run", "schedule_id", d.ID, "error", err.Error())
		}
	}
}

// Close stops the ticker and waits for a run in progress.
func (s *Scheduler) Close() {
	s.stop()
	s.done.Wait()
}
