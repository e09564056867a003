package schedules_test

import (
	"testing"
	"time"

	"secscan/shared/plans"
	"secscan/shared/schedules"
)

func TestNextFollowsTheGrid(t *testing.T) {
	t.Parallel()
	anchor := time.Date(2026, 1, 31, 10, 15, 42, 0, time.UTC) // truncated to 10:15
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		cadence plans.Cadence
		after   string
		want    string
	}{
		{plans.Daily, "2026-01-31T10:15:42Z", "2026-02-01T10:15:00Z"},
		{plans.Daily, "2026-01-01T00:00:00Z", "2026-02-01T10:15:00Z"}, // before the anchor
		{plans.Daily, "2026-02-01T10:15:00Z", "2026-02-02T10:15:00Z"}, // strictly after
		{plans.Daily, "2026-02-03T23:00:00Z", "2026-02-04T10:15:00Z"},
		{plans.Weekly, "2026-01-31T10:15:00Z", "2026-02-07T10:15:00Z"},
		{plans.Weekly, "2026-02-08T00:00:00Z", "2026-02-14T10:15:00Z"},
		{plans.Monthly, "2026-01-31T10:15:00Z", "2026-02-28T10:15:00Z"}, // day 31 -> the 28th
		{plans.Monthly, "2026-02-28T10:15:00Z", "2026-03-28T10:15:00Z"},
		{plans.Monthly, "2026-12-29T00:00:00Z", "2027-01-28T10:15:00Z"},
	} {
		if got := schedules.Next(tc.cadence, anchor, at(tc.after)); !got.Equal(at(tc.want)) {
			t.Errorf("Next(%s, after %s) = %s, want %s", tc.cadence, tc.after, got.Format(time.RFC3339), tc.want)
		}
	}
}

func TestExpressionMatchesNext(t *testing.T) {
	t.Parallel()
	anchor := time.Date(2026, 3, 5, 7, 9, 0, 0, time.UTC)
	for c, want := range map[plans.Cadence]string{plans.Daily: "rate(1 day)", plans.Weekly: "rate(7 days)", plans.Monthly: "cron(9 7 5 * ? *)"} {
		expr, start := schedules.Expression(c, anchor, anchor.Add(50*time.Hour))
		if expr != want {
			t.Errorf("%s: expression %q, want %q", c, expr, want)
		}
		if (start != nil) != (c != plans.Monthly) {
			t.Errorf("%s: start date %v", c, start)
		}
		if start != nil && !start.Equal(schedules.Next(c, anchor, anchor.Add(50*time.Hour))) {
			t.Errorf("%s: start %s is not the first run", c, start)
		}
	}
}
