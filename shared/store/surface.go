package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/scans"
)

// The attack surface of a scan lives beside its steps and findings, one
// item per entry, so an entry is rewritten only when a step adds to it and
// the whole surface is read with the rest of the scan's partition:
//
//	SCAN#<scn id>   SURFACE#H#<name>                      a host
//	SCAN#<scn id>   SURFACE#S#<host>#<address>#<port>     a service
//	SCAN#<scn id>   SURFACE#W#<origin>                    a web origin
//	SCAN#<scn id>   SURFACE#X#<name>                      a name seen outside the scope (counted only)
//	SCAN#<scn id>   SURFACE#A#<address>                   an address: probed, and what ties it to the domain
const (
	surfacePrefix  = "SURFACE#"
	surfaceHost    = surfacePrefix + "H#"
	surfaceService = surfacePrefix + "S#"
	surfaceWeb     = surfacePrefix + "W#"
	surfaceOutside = surfacePrefix + "X#"
	surfaceAddress = surfacePrefix + "A#"
)

// Surface returns the attack surface a scan has discovered so far.
func (s *Store) Surface(ctx context.Context, scanID string) (scans.Surface, error) {
	items, err := s.scanChildren(ctx, scanID, surfacePrefix)
	if err != nil {
		return scans.Surface{}, err
	}
	return decodeSurface(items)
}

// MergeSurface adds a step's fragment of the surface to the scan's: only
// entries the fragment changes are written, so a re-delivered step writes
// nothing new. Steps of one scan run one at a time (the state machine's
// loop), so read, merge and write need no transaction.
func (s *Store) MergeSurface(ctx context.Context, scanID string, frag scans.Surface) error {
	if frag.Empty() {
		return nil
	}
	cur, err := s.Surface(ctx, scanID)
	if err != nil {
		return err
	}
	before := surfaceItems(scanID, cur)
	merged := cur
	merged.Merge(frag)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, maxParallelWrites)
	)
	for sk, body := range surfaceItems(scanID, merged) {
		if before[sk] == body {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: &s.table,
				Item:      marshal(childItem{PK: scanPK(scanID), SK: sk, Body: body}),
			})
			if err != nil {
				mu.Lock()
				if first == nil {
					first = dbError("put surface entry", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// surfaceItems returns the sort key and body of every entry of sf.
func surfaceItems(scanID string, sf scans.Surface) map[string]string {
	out := map[string]string{}
	put := func(sk string, v any) {
		body, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("store: encode surface entry of %s: %v", scanID, err)) // plain structs
		}
		out[sk] = string(body)
	}
	for _, h := range sf.Hosts {
		put(surfaceHost+h.Name, h)
	}
	for _, v := range sf.Services {
		put(fmt.Sprintf("%s%s#%s#%05d", surfaceService, v.Host, v.Address, v.Port), v)
	}
	for _, w := range sf.Web {
		put(surfaceWeb+w.Origin, w)
	}
	for _, n := range sf.OutOfScopeNames {
		put(surfaceOutside+n, n)
	}
	for _, a := range sf.Addresses {
		put(surfaceAddress+a.Address, a)
	}
	return out
}

func decodeSurface(items []map[string]types.AttributeValue) (scans.Surface, error) {
	var sf scans.Surface
	for _, item := range items {
		var c childItem
		if err := attributevalue.UnmarshalMap(item, &c); err != nil {
			return scans.Surface{}, fmt.Errorf("decode surface item: %w", err)
		}
		var err error
		switch {
		case strings.HasPrefix(c.SK, surfaceHost):
			var h scans.Host
			err = json.Unmarshal([]byte(c.Body), &h)
			sf.Hosts = append(sf.Hosts, h)
		case strings.HasPrefix(c.SK, surfaceService):
			var v scans.ServiceInfo
			err = json.Unmarshal([]byte(c.Body), &v)
			sf.Services = append(sf.Services, v)
		case strings.HasPrefix(c.SK, surfaceWeb):
			var w scans.WebOrigin
			err = json.Unmarshal([]byte(c.Body), &w)
			sf.Web = append(sf.Web, w)
		case strings.HasPrefix(c.SK, surfaceOutside):
			var n string
			err = json.Unmarshal([]byte(c.Body), &n)
			sf.OutOfScopeNames = append(sf.OutOfScopeNames, n)
		case strings.HasPrefix(c.SK, surfaceAddress):
			var a scans.Address
			err = json.Unmarshal([]byte(c.Body), &a)
			sf.Addresses = append(sf.Addresses, a)
		}
		if err != nil {
			return scans.Surface{}, fmt.Errorf("decode %s: %w", c.SK, err)
		}
	}
	sf.OutOfScope = len(sf.OutOfScopeNames)
	sf.Sort()
	return sf, nil
}
