package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// A target's monitoring state lives in a partition of its own, so the scan
// agent can keep it without write access to the users' partitions, and one
// Query reads all of it at completion:
//
//	TARGET#<tgt id>  ISSUE#<issue key>            one issue of the ledger (first/last seen,
//	                                              open|fixed, the triage decision)
//	TARGET#<tgt id>  ASSET#H#<host>               a host of the asset inventory
//	TARGET#<tgt id>  ASSET#S#<host>#<port, 5 d>   a service of the inventory
//	TARGET#<tgt id>  LATEST#<scan type>           the last completed scans of that type
//	                                              (ids and finish times): the baseline
//	SCAN#<scn id>    COMPARE#<nnn>                the scan's comparison (changes, triage as it
//	                                              was, fixed issues, new assets), JSON split
//	                                              across items of at most 300 KB
//
// A ledger item holds one issue and no per-scan history, so its size does
// not grow with the number of scans (about 0.3 KB, 1 KB with a 500-character
// triage reason). Callers reach a target id only through its owner's
// target record (USER#<usr>/TARGET#<tgt>).
const (
	targetPrefix  = "TARGET#"
	ledgerPrefix  = "ISSUE#"
	assetPrefix   = "ASSET#"
	assetHost     = assetPrefix + "H#"
	assetService  = assetPrefix + "S#"
	latestPrefix  = "LATEST#"
	comparePrefix = "COMPARE#"

	// maxCompareItemBytes is the JSON a comparison item holds.
	maxCompareItemBytes = 300 << 10
	// maxLatest is how many completed scans a LATEST# item remembers.
	maxLatest = 8
	// maxTransactItems is DynamoDB's limit of actions in one transaction.
	maxTransactItems = 100
)

func targetPK(id string) string { return targetPrefix + id }

type ledgerItem struct {
	PK          string     `dynamodbav:"pk"`
	SK          string     `dynamodbav:"sk"`
	Key         string     `dynamodbav:"key"`
	Check       string     `dynamodbav:"check"`
	CVE         *string    `dynamodbav:"cve,omitempty"`
	Title       string     `dynamodbav:"title"`
	Severity    string     `dynamodbav:"severity"`
	Status      string     `dynamodbav:"status"`
	FirstSeenAt time.Time  `dynamodbav:"first_seen_at"`
	LastSeenAt  time.Time  `dynamodbav:"last_seen_at"`
	LastScanID  string     `dynamodbav:"last_scan_id"`
	FixedAt     *time.Time `dynamodbav:"fixed_at,omitempty"`
	// Triage is the last decision, as JSON (scans.Triage), kept even when
	// it says open so who changed it and when stays known.
	Triage string `dynamodbav:"triage,omitempty"`
}

func (it ledgerItem) entry() (scans.LedgerEntry, error) {
	e := scans.LedgerEntry{Key: it.Key, Check: scans.CheckCode(it.Check), CVE: it.CVE, Title: it.Title,
		Severity: scans.Severity(it.Severity), Status: it.Status, FirstSeenAt: it.FirstSeenAt, LastSeenAt: it.LastSeenAt,
		LastScanID: it.LastScanID, FixedAt: it.FixedAt}
	if it.Triage != "" {
		var t scans.Triage
		if err := json.Unmarshal([]byte(it.Triage), &t); err != nil {
			return scans.LedgerEntry{}, fmt.Errorf("decode triage of %s: %w", it.Key, err)
		}
		e.Triage = &t
	}
	return e, nil
}

type assetHostItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	Name        string    `dynamodbav:"name"`
	Addresses   []string  `dynamodbav:"addresses,stringset,omitempty"`
	Sources     []string  `dynamodbav:"sources,stringset,omitempty"`
	FirstSeenAt time.Time `dynamodbav:"first_seen_at"`
	LastSeenAt  time.Time `dynamodbav:"last_seen_at"`
}

type assetServiceItem struct {
	PK          string    `dynamodbav:"pk"`
	SK          string    `dynamodbav:"sk"`
	Host        string    `dynamodbav:"host"`
	Port        int       `dynamodbav:"port"`
	Protocol    string    `dynamodbav:"protocol"`
	Product     string    `dynamodbav:"product"`
	Version     string    `dynamodbav:"version"`
	FirstSeenAt time.Time `dynamodbav:"first_seen_at"`
	LastSeenAt  time.Time `dynamodbav:"last_seen_at"`
}

type latestItem struct {
	PK      string   `dynamodbav:"pk"`
	SK      string   `dynamodbav:"sk"`
	Scans   []string `dynamodbav:"scans"` // "<scn id>|<finished_at RFC 3339>", newest id first
	Version int      `dynamodbav:"version"`
}

// ScanRef is a completed scan as a LATEST# item remembers it.
type ScanRef struct {
	ID         string
	FinishedAt time.Time
}

// TargetState is a target's monitoring state: its issue ledger by key, its
// asset inventory, and its last completed scans by scan type.
type TargetState struct {
	Ledger   map[string]scans.LedgerEntry
	Assets   scans.Assets
	Latest   map[scans.Type][]ScanRef
	versions map[scans.Type]int
}

// Baseline returns the latest completed scan of the type created before
// scanID (ids sort by creation), if any.
func (ts TargetState) Baseline(typ scans.Type, scanID string) (ScanRef, bool) {
	for _, r := range ts.Latest[typ] {
		if r.ID < scanID {
			return r, true
		}
	}
	return ScanRef{}, false
}

// TargetState reads a target's monitoring state in one Query (more pages
// when it passes 1 MB).
func (s *Store) TargetState(ctx context.Context, targetID string) (TargetState, error) {
	items, err := s.queryAll(ctx, targetPK(targetID), "")
	if err != nil {
		return TargetState{}, err
	}
	ts := TargetState{Ledger: map[string]scans.LedgerEntry{}, Latest: map[scans.Type][]ScanRef{},
		versions: map[scans.Type]int{}, Assets: scans.Assets{Hosts: []scans.AssetHost{}, Services: []scans.AssetService{}}}
	for _, item := range items {
		if err := ts.add(item); err != nil {
			return TargetState{}, err
		}
	}
	return ts, nil
}

// add decodes one item of a target's partition into the state: a ledger
// entry, an asset host or service, or a scan type's latest scans.
func (ts *TargetState) add(item map[string]types.AttributeValue) error {
	sk := item["sk"].(*types.AttributeValueMemberS).Value
	switch {
	case strings.HasPrefix(sk, ledgerPrefix):
		it, err := decodeItem[ledgerItem](item, "ledger item")
		if err != nil {
			return err
		}
		e, err := it.entry()
		if err != nil {
			return err
		}
		ts.Ledger[e.Key] = e
	case strings.HasPrefix(sk, assetHost):
		it, err := decodeItem[assetHostItem](item, "asset")
		if err != nil {
			return err
		}
		ts.Assets.Hosts = append(ts.Assets.Hosts, scans.AssetHost{Name: it.Name, Addresses: sorted(it.Addresses),
			Sources: sorted(it.Sources), FirstSeenAt: it.FirstSeenAt, LastSeenAt: it.LastSeenAt})
	case strings.HasPrefix(sk, assetService):
		it, err := decodeItem[assetServiceItem](item, "asset")
		if err != nil {
			return err
		}
		ts.Assets.Services = append(ts.Assets.Services, scans.AssetService{Host: it.Host, Port: it.Port,
			Protocol: it.Protocol, Product: it.Product, Version: it.Version, FirstSeenAt: it.FirstSeenAt, LastSeenAt: it.LastSeenAt})
	case strings.HasPrefix(sk, latestPrefix):
		it, err := decodeItem[latestItem](item, "latest scans")
		if err != nil {
			return err
		}
		typ := scans.Type(strings.TrimPrefix(sk, latestPrefix))
		ts.Latest[typ] = decodeRefs(it.Scans)
		ts.versions[typ] = it.Version
	}
	return nil
}

// decodeItem decodes a DynamoDB item into T; what names it in the error.
func decodeItem[T any](item map[string]types.AttributeValue, what string) (T, error) {
	var it T
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return it, fmt.Errorf("decode %s: %w", what, err)
	}
	return it, nil
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return out
}

func decodeRefs(list []string) []ScanRef {
	var out []ScanRef
	for _, v := range list {
		id, at, _ := strings.Cut(v, "|")
		t, _ := time.Parse(time.RFC3339Nano, at)
		out = append(out, ScanRef{ID: id, FinishedAt: t})
	}
	return out
}

// queryAll reads a partition's items whose sort key starts with prefix.
func (s *Store) queryAll(ctx context.Context, pk, prefix string) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		ConsistentRead:            aws.Bool(true),
	}
	if prefix != "" {
		in.KeyConditionExpression = aws.String("pk = :pk AND begins_with(sk, :prefix)")
		in.ExpressionAttributeValues[":prefix"] = str(prefix)
	}
	var out []map[string]types.AttributeValue
	for range maxScanChildren {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, dbError("query "+strings.TrimSuffix(prefix, "#"), err)
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// IssueLedger returns a target's issue ledger, most severe first, then by key.
func (s *Store) IssueLedger(ctx context.Context, targetID string) ([]scans.LedgerEntry, error) {
	items, err := s.queryAll(ctx, targetPK(targetID), ledgerPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]scans.LedgerEntry, 0, len(items))
	for _, item := range items {
		var it ledgerItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return nil, fmt.Errorf("decode ledger item: %w", err)
		}
		e, err := it.entry()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b scans.LedgerEntry) int {
		return cmp.Or(cmp.Compare(a.Severity.Rank(), b.Severity.Rank()), strings.Compare(a.Key, b.Key))
	})
	return out, nil
}

// Assets returns a target's asset inventory, hosts by name, services by
// host and port.
func (s *Store) Assets(ctx context.Context, targetID string) (scans.Assets, error) {
	ts, err := s.TargetState(ctx, targetID)
	if err != nil {
		return scans.Assets{}, err
	}
	slices.SortFunc(ts.Assets.Hosts, func(a, b scans.AssetHost) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(ts.Assets.Services, func(a, b scans.AssetService) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), cmp.Compare(a.Port, b.Port))
	})
	return ts.Assets, nil
}

// SetTriage records a triage decision on an issue of the target's ledger
// and returns the entry; ErrNotFound when the ledger has no such issue.
func (s *Store) SetTriage(ctx context.Context, targetID, issueKey string, t scans.Triage) (scans.LedgerEntry, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return scans.LedgerEntry{}, fmt.Errorf("encode triage: %w", err)
	}
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(targetPK(targetID), ledgerPrefix+issueKey),
		UpdateExpression:          aws.String("SET triage = :t"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": str(string(body))},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if _, ok := IsConditionFailed(err); ok {
		return scans.LedgerEntry{}, &NotFoundError{Kind: "issue", ID: issueKey, Text: true}
	}
	if err != nil {
		return scans.LedgerEntry{}, dbError("set triage", err)
	}
	var it ledgerItem
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return scans.LedgerEntry{}, fmt.Errorf("decode ledger item: %w", err)
	}
	return it.entry()
}

// Completion is what a completed scan writes to its target's state.
type Completion struct {
	Scan       scans.Scan
	Issues     []scans.Issue
	Comparison scans.Comparison
	// Baseline issues (with their wording) for the fixed ones the ledger
	// may not hold yet (scans completed before the ledger existed).
	Surface scans.Surface
	// LatestVersion is the LATEST# item's version as read (TargetState).
	State TargetState
	Now   time.Time
}

// SaveComparison keeps a scan's comparison in its partition (COMPARE#
// items), so its record shows the comparison as it was at completion and a
// re-delivered completion reuses it rather than comparing again.
func (s *Store) SaveComparison(ctx context.Context, scanID string, c scans.Comparison) error {
	body, err := json.Marshal(comparisonJSON(c))
	if err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	var items []types.TransactWriteItem
	for i := 0; len(body) > 0; i++ {
		n := min(len(body), maxCompareItemBytes)
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
			Item: marshal(childItem{PK: scanPK(scanID), SK: fmt.Sprintf("%s%03d", comparePrefix, i), Body: string(body[:n])})}})
		body = body[n:]
	}
	if len(items) == 1 {
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: items[0].Put.Item})
		return dbError("put comparison", err)
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return dbError("put comparison", err)
}

type storedComparison struct {
	BaselineScanID     string                       `json:"baseline_scan_id,omitempty"`
	BaselineFinishedAt *time.Time                   `json:"baseline_finished_at,omitempty"`
	Changes            map[string]scans.IssueChange `json:"changes"`
	Triage             map[string]scans.Triage      `json:"triage"`
	Fixed              []scans.FixedIssue           `json:"fixed"`
	NotRetested        []string                     `json:"not_retested"`
	NewHosts           []string                     `json:"new_hosts"`
	NewServices        []string                     `json:"new_services"`
}

func comparisonJSON(c scans.Comparison) storedComparison {
	out := storedComparison{BaselineScanID: c.BaselineScanID, Changes: c.Changes, Triage: c.Triage, Fixed: c.Fixed,
		NotRetested: c.NotRetested, NewHosts: c.NewHosts, NewServices: c.NewServices}
	if !c.BaselineFinishedAt.IsZero() {
		at := c.BaselineFinishedAt
		out.BaselineFinishedAt = &at
	}
	return out
}

// decodeComparison joins a scan's COMPARE# items; nil when there are none.
func decodeComparison(items []map[string]types.AttributeValue) (*scans.Comparison, error) {
	var parts []childItem
	for _, item := range items {
		sk, _ := item["sk"].(*types.AttributeValueMemberS)
		if sk == nil || !strings.HasPrefix(sk.Value, comparePrefix) {
			continue
		}
		var c childItem
		if err := attributevalue.UnmarshalMap(item, &c); err != nil {
			return nil, fmt.Errorf("decode comparison item: %w", err)
		}
		parts = append(parts, c)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	slices.SortFunc(parts, func(a, b childItem) int { return strings.Compare(a.SK, b.SK) })
	var body strings.Builder
	for _, p := range parts {
		body.WriteString(p.Body)
	}
	var sc storedComparison
	if err := json.Unmarshal([]byte(body.String()), &sc); err != nil {
		return nil, fmt.Errorf("decode comparison: %w", err)
	}
	c := scans.Comparison{BaselineScanID: sc.BaselineScanID, Changes: sc.Changes, Triage: sc.Triage, Fixed: sc.Fixed,
		NotRetested: sc.NotRetested, NewHosts: sc.NewHosts, NewServices: sc.NewServices}
	if sc.BaselineFinishedAt != nil {
		c.BaselineFinishedAt = *sc.BaselineFinishedAt
	}
	if c.Fixed == nil {
		c.Fixed = []scans.FixedIssue{}
	}
	return &c, nil
}

// ApplyCompletion writes a completed scan to its target's state: every
// issue it saw (open, last seen now; first seen kept), every issue it found
// fixed, every host and service of its surface (first seen kept, addresses
// and sources merged), and the scan as the latest of its type. The ledger
// and asset updates go in transactions of up to 100 updates, run in
// parallel; an update names only the attributes a scan owns, so a triage
// decision made meanwhile is never overwritten.
func (s *Store) ApplyCompletion(ctx context.Context, c Completion) error {
	u := &completionUpdates{table: s.table, pk: targetPK(c.Scan.TargetID), now: stamp(c.Now)}
	for _, is := range c.Issues {
		u.seenIssue(is, c.Scan.ID)
	}
	for _, f := range c.Comparison.Fixed {
		u.fixedIssue(f, c.Comparison.BaselineFinishedAt)
	}
	for _, h := range mergedHosts(c.Surface.Hosts) {
		u.host(h)
	}
	for sk, v := range namedServices(c.Surface.Services) {
		u.service(sk, v)
	}
	if err := s.transactInChunks(ctx, u.items); err != nil {
		return err
	}
	return s.recordLatest(ctx, c.State, c.Scan, c.Now)
}

// completionUpdates collects the updates of a completion to one target's
// items, each naming only the attributes a scan owns.
type completionUpdates struct {
	table string
	pk    string
	now   types.AttributeValue
	items []types.TransactWriteItem
}

func (u *completionUpdates) add(sk, expr string, names map[string]string, values map[string]types.AttributeValue) {
	up := &types.Update{TableName: &u.table, Key: key(u.pk, sk), UpdateExpression: aws.String(expr),
		ExpressionAttributeValues: values}
	if len(names) > 0 {
		up.ExpressionAttributeNames = names
	}
	u.items = append(u.items, types.TransactWriteItem{Update: up})
}

// issueNames are the reserved words the ledger updates name.
func issueNames() map[string]string {
	return map[string]string{"#key": "key", "#status": "status", "#check": "check"}
}

// seenIssue: open, last seen now by scanID; first seen kept.
func (u *completionUpdates) seenIssue(is scans.Issue, scanID string) {
	values := map[string]types.AttributeValue{":key": str(is.Key), ":check": str(string(is.Check)),
		":title": str(is.Title), ":sev": str(string(is.Severity)), ":open": str(scans.IssueOpen), ":now": u.now,
		":scan": str(scanID)}
	expr := "SET #key = :key, #check = :check, title = :title, severity = :sev, #status = :open, " +
		"first_seen_at = if_not_exists(first_seen_at, :now), last_seen_at = :now, last_scan_id = :scan"
	if is.CVE != nil {
		expr += ", cve = :cve"
		values[":cve"] = str(*is.CVE)
	}
	u.add(ledgerPrefix+is.Key, expr+" REMOVE fixed_at", issueNames(), values)
}

// fixedIssue: fixed now; what the ledger knew of it kept, else what the
// baseline scan (finished at baselineAt) saw.
func (u *completionUpdates) fixedIssue(f scans.FixedIssue, baselineAt time.Time) {
	values := map[string]types.AttributeValue{":key": str(f.Key), ":check": str(string(f.Check)),
		":title": str(f.Title), ":sev": str(string(f.Severity)), ":fixed": str(scans.IssueFixed), ":now": u.now,
		":last": str(f.LastSeenScanID), ":seen": stamp(baselineAt)}
	expr := "SET #key = :key, #check = if_not_exists(#check, :check), title = if_not_exists(title, :title), " +
		"severity = if_not_exists(severity, :sev), #status = :fixed, fixed_at = :now, " +
		"first_seen_at = if_not_exists(first_seen_at, :seen), last_seen_at = if_not_exists(last_seen_at, :seen), " +
		"last_scan_id = if_not_exists(last_scan_id, :last)"
	if f.CVE != nil {
		expr += ", cve = if_not_exists(cve, :cve)"
		values[":cve"] = str(*f.CVE)
	}
	u.add(ledgerPrefix+f.Key, expr, issueNames(), values)
}

// mergedHosts folds the surface's entries of one name (any case) together.
func mergedHosts(in []scans.Host) map[string]scans.Host {
	hosts := map[string]scans.Host{}
	for _, h := range in {
		n := strings.ToLower(h.Name)
		cur := hosts[n]
		cur.Name = n
		cur.Addresses = append(cur.Addresses, h.Addresses...)
		cur.Sources = append(cur.Sources, h.Sources...)
		hosts[n] = cur
	}
	return hosts
}

// host: seen now, first seen kept, addresses and sources added to the sets.
func (u *completionUpdates) host(h scans.Host) {
	values := map[string]types.AttributeValue{":name": str(h.Name), ":now": u.now}
	expr := "SET #name = :name, first_seen_at = if_not_exists(first_seen_at, :now), last_seen_at = :now"
	var add []string
	if set := distinct(h.Addresses); len(set) > 0 {
		add = append(add, "addresses :addrs")
		values[":addrs"] = &types.AttributeValueMemberSS{Value: set}
	}
	var srcs []string
	for _, s := range h.Sources {
		srcs = append(srcs, string(s))
	}
	if set := distinct(srcs); len(set) > 0 {
		add = append(add, "sources :srcs")
		values[":srcs"] = &types.AttributeValueMemberSS{Value: set}
	}
	if len(add) > 0 {
		expr += " ADD " + strings.Join(add, ", ")
	}
	u.add(assetHost+h.Name, expr, map[string]string{"#name": "name"}, values)
}

// namedServices keys the surface's services by host and port, preferring
// an entry that names its product.
func namedServices(in []scans.ServiceInfo) map[string]scans.ServiceInfo {
	services := map[string]scans.ServiceInfo{}
	for _, v := range in {
		k := fmt.Sprintf("%s#%05d", strings.ToLower(v.Host), v.Port)
		cur, ok := services[k]
		if !ok || (cur.Product == "" && v.Product != "") {
			services[k] = v
		}
	}
	return services
}

// service: seen now; what a scan could not name keeps what an earlier one named.
func (u *completionUpdates) service(sk string, v scans.ServiceInfo) {
	values := map[string]types.AttributeValue{":host": str(strings.ToLower(v.Host)), ":port": number(int64(v.Port)),
		":now": u.now, ":proto": str(v.Protocol)}
	expr := "SET #host = :host, #port = :port, #protocol = :proto, first_seen_at = if_not_exists(first_seen_at, :now), " +
		"last_seen_at = :now"
	expr += keptUnlessNamed("product", "product", v.Product, values)
	expr += keptUnlessNamed("#version", "version", v.Version, values)
	u.add(assetService+sk, expr, map[string]string{"#host": "host", "#port": "port", "#protocol": "protocol",
		"#version": "version"}, values)
}

// keptUnlessNamed sets attr to value when value is known, else keeps what
// the item has (an empty string on a new item).
func keptUnlessNamed(attr, name, value string, values map[string]types.AttributeValue) string {
	if value == "" {
		values[":empty"] = str("")
		return ", " + attr + " = if_not_exists(" + attr + ", :empty)"
	}
	values[":"+name] = str(value)
	return ", " + attr + " = :" + name
}

func distinct(in []string) []string {
	var out []string
	for _, v := range in {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// maxParallelTransactions bounds the concurrent transactions of a completion.
const maxParallelTransactions = 4

// transactInChunks runs items in transactions of up to 100, in parallel. A
// transaction that conflicts with a concurrent write (a triage decision on
// one of its issues) is retried.
func (s *Store) transactInChunks(ctx context.Context, items []types.TransactWriteItem) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, maxParallelTransactions)
	)
	for chunk := range slices.Chunk(items, maxTransactItems) {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			var err error
			for attempt := range 4 {
				_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: chunk})
				if !isTransactionConflict(err) {
					break
				}
				time.Sleep(time.Duration(25*(attempt+1)) * time.Millisecond)
			}
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, dbError("update target state", err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

func isTransactionConflict(err error) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return false
	}
	for _, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "TransactionConflict" {
			return true
		}
	}
	return false
}

// recordLatest adds the scan to the LATEST# item of its type (newest id
// first, at most maxLatest), conditioned on the version read, re-reading
// when another completion wrote it meanwhile.
func (s *Store) recordLatest(ctx context.Context, ts TargetState, sc scans.Scan, now time.Time) error {
	refs, version := ts.Latest[sc.Type], ts.versions[sc.Type]
	k := key(targetPK(sc.TargetID), latestPrefix+string(sc.Type))
	for range 4 {
		list := []ScanRef{{ID: sc.ID, FinishedAt: now.UTC()}}
		for _, r := range refs {
			if r.ID != sc.ID {
				list = append(list, r)
			}
		}
		slices.SortFunc(list, func(a, b ScanRef) int { return strings.Compare(b.ID, a.ID) })
		list = list[:min(len(list), maxLatest)]
		var enc []string
		for _, r := range list {
			enc = append(enc, r.ID+"|"+r.FinishedAt.UTC().Format(time.RFC3339Nano))
		}
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.table,
			Item: marshal(latestItem{PK: targetPK(sc.TargetID), SK: latestPrefix + string(sc.Type), Scans: enc,
				Version: version + 1}),
			ConditionExpression:       aws.String("attribute_not_exists(pk) OR version = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": number(int64(version))},
		})
		if _, ok := IsConditionFailed(err); !ok {
			return dbError("record latest scan", err)
		}
		var cur latestItem
		if err := s.get(ctx, k, &cur); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		refs, version = decodeRefs(cur.Scans), cur.Version
	}
	return fmt.Errorf("record latest scan of %s: the item kept changing", sc.TargetID)
}
