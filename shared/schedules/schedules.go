// Package schedules holds the time rules of scheduled scans (CONTRACT
// "Monitoring: schedules, triage, assets"): when a schedule of a cadence runs
// next, and the EventBridge Scheduler expression that runs it on the same
// grid. A schedule's grid is fixed by its anchor, the minute it was created
// (or its cadence last changed): daily and weekly runs fall every 1 or 7 days
// after the anchor, monthly runs on the anchor's day of the month (the 28th
// at the latest, so every month has one) at the anchor's time of day, UTC.
// The store's next_run_at, the local stack's ticker and the deployed
// schedule all follow the same grid.
package schedules

import (
	"fmt"
	"time"

	"secscan/shared/plans"
)

// Anchor is the grid origin of a schedule created or re-timed at t: t in UTC,
// truncated to the minute (schedule expressions have minute precision).
func Anchor(t time.Time) time.Time { return t.UTC().Truncate(time.Minute) }

// period is the fixed interval of the rate cadences.
func period(c plans.Cadence) time.Duration {
	switch c {
	case plans.Daily:
		return 24 * time.Hour
	case plans.Weekly:
		return 7 * 24 * time.Hour
	}
	return 0
}

// monthDay is the day of the month monthly runs fall on.
func monthDay(anchor time.Time) int { return min(anchor.Day(), 28) }

// Next is the first run of the grid of (c, anchor) strictly after after, and
// never at the anchor itself: a new schedule first runs one period after it
// was created.
func Next(c plans.Cadence, anchor, after time.Time) time.Time {
	anchor = Anchor(anchor)
	if after.Before(anchor) {
		after = anchor
	}
	if p := period(c); p > 0 {
		k := after.Sub(anchor)/p + 1
		return anchor.Add(k * p)
	}
	// Monthly: the anchor's day and time of day, from the anchor's month on.
	for m := 0; ; m++ {
		t := time.Date(anchor.Year(), anchor.Month()+time.Month(m), monthDay(anchor),
			anchor.Hour(), anchor.Minute(), 0, 0, time.UTC)
		if t.After(after) {
			return t
		}
	}
}

// Expression is the EventBridge Scheduler expression of the grid (in UTC):
// rate(1 day), rate(7 days), or a cron expression for monthly runs. A rate
// grid starts at start, its first point after now (EventBridge Scheduler
// refuses a start date in the past); cron needs none.
func Expression(c plans.Cadence, anchor, now time.Time) (expr string, start *time.Time) {
	anchor = Anchor(anchor)
	switch c {
	case plans.Daily, plans.Weekly:
		first := Next(c, anchor, now)
		if c == plans.Daily {
			return "rate(1 day)", &first
		}
		return "rate(7 days)", &first
	}
	return fmt.Sprintf("cron(%d %d %d * ? *)", anchor.Minute(), anchor.Hour(), monthDay(anchor)), nil
}

// FlexibleWindowMinutes is the flexible time window of every deployed
// schedule: EventBridge Scheduler starts a run within this many minutes after
// its time, spreading the load of schedules that share a minute.
const FlexibleWindowMinutes = 60
