// Reading a scan with what it accumulated: its steps and findings, kept in
// the scan's own partition (GET /api/scans/{id}, the reports, the agent).

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// ScanDetail is the full record: the scan, its findings (most severe first,
// then in discovery order), the issues they form (scans.GroupIssues), the
// baseline's issues this scan found fixed, and its steps (in order).
type ScanDetail struct {
	Scan        scans.Scan
	Findings    []scans.Finding
	Issues      []scans.Issue
	FixedIssues []scans.FixedIssue
	Steps       []scans.Step
	Surface     scans.Surface
	// Comparison is what completion compared (nil before it, and for scans
	// completed before monitoring existed).
	Comparison *scans.Comparison
}

// GetScanDetail reads the record and what the scan accumulated concurrently:
// two requests, whatever the number of steps and findings (up to 1 MB; more
// pages follow when needed).
func (s *Store) GetScanDetail(ctx context.Context, userID, id string) (ScanDetail, error) {
	var (
		d        ScanDetail
		children []map[string]types.AttributeValue
		childErr error
		wg       sync.WaitGroup
	)
	wg.Go(func() { children, childErr = s.scanChildren(ctx, id, "") })
	var err error
	d.Scan, err = s.GetScan(ctx, userID, id)
	wg.Wait()
	if err != nil {
		return ScanDetail{}, err
	}
	if childErr != nil {
		return ScanDetail{}, childErr
	}
	if err := d.decode(children); err != nil {
		return ScanDetail{}, err
	}
	return d, nil
}

// decode fills d from the scan's child items: its steps, findings and
// surface, the issues grouped from the findings, and what its comparison
// with the baseline said of each.
func (d *ScanDetail) decode(children []map[string]types.AttributeValue) error {
	var err error
	if d.Steps, d.Findings, err = decodeChildren(children); err != nil {
		return err
	}
	if d.Surface, err = decodeSurface(children); err != nil {
		return err
	}
	d.Issues = scans.GroupIssues(d.Findings)
	d.Scan.IssuesCount = len(d.Issues)
	d.FixedIssues = []scans.FixedIssue{}
	if d.Comparison, err = decodeComparison(children); err != nil {
		return err
	}
	if c := d.Comparison; c != nil {
		annotateIssues(d.Issues, c)
		d.FixedIssues = c.Fixed
	}
	return nil
}

// annotateIssues marks each issue with its change since the baseline (when
// there was one) and the target's triage of it, as the comparison recorded.
func annotateIssues(issues []scans.Issue, c *scans.Comparison) {
	for i := range issues {
		is := &issues[i]
		if ch, ok := c.Changes[is.Key]; ok && c.BaselineScanID != "" {
			is.Change = &ch
		}
		if t, ok := c.Triage[is.Key]; ok {
			is.Triage = &t
		}
	}
}

// SortFindings orders findings in the one order people read them
// (scans.CompareFindings), so the API, the dashboard and the CLI list them
// as the reports do.
func SortFindings(fs []scans.Finding) { scans.SortFindings(fs) }

type childItem struct {
	PK   string `dynamodbav:"pk"`
	SK   string `dynamodbav:"sk"`
	Body string `dynamodbav:"body"`
	// Issue is a finding's issue key, beside its body so RecordStep counts
	// the scan's issues without reading the bodies.
	Issue string `dynamodbav:"issue,omitempty"`
	// Tool and Input are the call that found a finding, so a retest can
	// make the same call again (SourcedFindings).
	Tool  string `dynamodbav:"tool,omitempty"`
	Input string `dynamodbav:"input,omitempty"`
}

func scanPK(id string) string { return scanPrefix + id }

// scanChildren reads the items of the scan's partition whose sort key starts
// with prefix ("" for all), following pages up to maxScanChildren.
func (s *Store) scanChildren(ctx context.Context, id, prefix string) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: scanPK(id)},
		},
		ConsistentRead: aws.Bool(true),
	}
	if prefix != "" {
		in.KeyConditionExpression = aws.String("pk = :pk AND begins_with(sk, :prefix)")
		in.ExpressionAttributeValues[":prefix"] = &types.AttributeValueMemberS{Value: prefix}
	}
	var out []map[string]types.AttributeValue
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, dbError("query scan items", err)
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil || len(out) >= maxScanChildren {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// Steps returns the recorded steps of a scan, in order. Callers reach a scan
// id only through its owner's record.
func (s *Store) Steps(ctx context.Context, scanID string) ([]scans.Step, error) {
	items, err := s.scanChildren(ctx, scanID, stepPrefix)
	if err != nil {
		return nil, err
	}
	steps, _, err := decodeChildren(items)
	return steps, err
}

// Findings returns the findings of a scan, most severe first.
func (s *Store) Findings(ctx context.Context, scanID string) ([]scans.Finding, error) {
	items, err := s.scanChildren(ctx, scanID, findingPrefix)
	if err != nil {
		return nil, err
	}
	_, findings, err := decodeChildren(items)
	return findings, err
}

// decodeChildren decodes a scan's step and finding items: steps in order,
// findings most severe first.
func decodeChildren(items []map[string]types.AttributeValue) ([]scans.Step, []scans.Finding, error) {
	var (
		steps    []scans.Step
		findings []scans.Finding
	)
	for _, item := range items {
		var c childItem
		if err := attributevalue.UnmarshalMap(item, &c); err != nil {
			return nil, nil, fmt.Errorf("decode scan item: %w", err)
		}
		var err error
		switch {
		case strings.HasPrefix(c.SK, stepPrefix):
			var st scans.Step
			err = json.Unmarshal([]byte(c.Body), &st)
			if st.Status == "" {
				st.Status = legacyStepStatus(st.Outcome)
			}
			steps = append(steps, st)
		case strings.HasPrefix(c.SK, findingPrefix):
			var f scans.Finding
			err = json.Unmarshal([]byte(c.Body), &f)
			f.Confidence = f.DefaultConfidence()
			if f.Issue == "" { // recorded before issues existed
				f.Issue = issueKeyOf(f)
			}
			if f.Fingerprint == "" {
				f.Fingerprint = strings.TrimPrefix(c.SK, findingPrefix)
			}
			findings = append(findings, f)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("decode %s: %w", c.SK, err)
		}
	}
	slices.SortFunc(steps, func(a, b scans.Step) int { return a.Seq - b.Seq })
	SortFindings(findings)
	return steps, findings, nil
}

// legacyStepStatus types a step recorded before steps had a status, from
// the exact prefixes the agent wrote then.
func legacyStepStatus(outcome string) scans.StepStatus {
	switch {
	case strings.HasPrefix(outcome, "Refused: "):
		return scans.StepRefused
	case strings.HasPrefix(outcome, "Tool error: "):
		return scans.StepFailed
	case strings.HasPrefix(outcome, "Stopped at the tool's time limit"):
		return scans.StepTimedOut
	}
	return scans.StepOK
}
