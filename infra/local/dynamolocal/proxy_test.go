package dynamolocal_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/dynamotest"
)

// junkAuth is a signature DynamoDB Local accepts as readily as a real one.
const junkAuth = "AWS4-HMAC-SHA256 Credential=x/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=junk"

// call sends one DynamoDB JSON request to endpoint with the given Host and
// Origin (and headers, in pairs).
func call(t *testing.T, endpoint, host, origin, operation, body string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+operation)
	req.Header.Set("Authorization", junkAuth)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// DNS rebinding: a web page whose name now resolves to 127.0.0.1 sends its
// own name in Host. DynamoDB Local has no authentication, so without the
// proxy such a page reads and writes the whole table; through it, nothing is
// listed, read or written, while loopback Hosts and the SDK work as before.
func TestDynamoDBAnswersOnlyLoopbackHosts(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	db, table := dynamotest.NewTable(t) // through the proxy: the SDK works
	u, _ := url.Parse(endpoint)
	port := u.Port()
	put := `{"TableName":"` + table + `","Item":{"pk":{"S":"USER#rebound"},"sk":{"S":"PROFILE"},"is_admin":{"BOOL":true}}}`
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"rebind.example:" + port, "http://rebind.example:" + port, http.StatusMisdirectedRequest},
		{"localhost.rebind.example:" + port, "", http.StatusMisdirectedRequest},
		{"host.docker.internal:" + port, "", http.StatusMisdirectedRequest}, // only with DYNAMODB_LOCAL_PORT (sam local)
		{"127.0.0.1:1" + port, "", http.StatusMisdirectedRequest},
		{"127.0.0.1:" + port, "http://attacker.example", http.StatusForbidden},
	} {
		for _, rq := range []struct{ operation, body string }{{"ListTables", `{}`}, {"PutItem", put}} {
			status, body := call(t, endpoint, c.host, c.origin, rq.operation, rq.body)
			if status != c.want || !strings.Contains(body, "AccessDeniedException") || strings.Contains(body, table) {
				t.Errorf("%s with Host %q Origin %q: %d %s, want %d AccessDeniedException", rq.operation, c.host, c.origin, status, body, c.want)
			}
		}
	}
	got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "USER#rebound"}, "sk": &types.AttributeValueMemberS{Value: "PROFILE"}}})
	if err != nil || len(got.Item) != 0 {
		t.Fatalf("after the refused PutItems: item %v, err %v; want no item", got.Item, err)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "127.0.0.1"} {
		if status, body := call(t, endpoint, host, "", "ListTables", `{"Limit":100,"ExclusiveStartTableName":"`+table[:len(table)-1]+`"}`); status != http.StatusOK || !strings.Contains(body, table) {
			t.Errorf("ListTables with Host %q: %d %s, want 200 listing %s", host, status, body, table)
		}
	}
}

var own struct {
	once sync.Once
	srv  *dynamolocal.Server
	err  error
}

// ownServer is a DynamoDB Local of this test binary's own (not the shared
// DYNAMODB_ENDPOINT), whose private port and secret the tests know.
func ownServer(tb testing.TB) *dynamolocal.Server {
	tb.Helper()
	own.once.Do(func() {
		root, err := dynamotest.RepoRoot()
		if err != nil {
			own.err = err
			return
		}
		// Lives as long as the test process (Pdeathsig ends it with us).
		own.srv, own.err = dynamolocal.Start(context.Background(), filepath.Join(root, "infra", "local"), io.Discard)
	})
	if own.err != nil {
		tb.Fatal(own.err)
	}
	return own.srv
}

// A page that finds the emulator's private port gets nothing there either:
// without the proxy's per-start secret every request is refused, whatever
// the Host, and the table is unchanged.
func TestEmulatorAnswersOnlyItsProxy(t *testing.T) {
	srv := ownServer(t)
	db, table := dynamotest.NewTableAt(t, srv.Endpoint)
	u, _ := url.Parse(srv.Backend())
	port := u.Port()
	put := `{"TableName":"` + table + `","Item":{"pk":{"S":"USER#rebound"},"sk":{"S":"PROFILE"},"is_admin":{"BOOL":true}}}`
	for _, host := range []string{"rebind.example:" + port, "127.0.0.1:" + port} {
		for _, secret := range []string{"", "guess"} {
			for _, rq := range []struct{ operation, body string }{{"ListTables", `{}`}, {"PutItem", put}} {
				status, body := call(t, srv.Backend(), host, "", rq.operation, rq.body, dynamolocal.SecretHeader, secret)
				if status != http.StatusForbidden || strings.Contains(body, table) {
					t.Errorf("%s on the private port with Host %q, secret %q: %d %s, want 403", rq.operation, host, secret, status, body)
				}
			}
		}
	}
	got, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "USER#rebound"}, "sk": &types.AttributeValueMemberS{Value: "PROFILE"}}})
	if err != nil || len(got.Item) != 0 {
		t.Fatalf("after the refused PutItems: item %v, err %v; want no item", got.Item, err)
	}
	if status, body := call(t, srv.Backend(), "127.0.0.1:"+port, "", "ListTables", `{}`, dynamolocal.SecretHeader, srv.Secret()); status != http.StatusOK {
		t.Errorf("ListTables with the secret: %d %s, want 200", status, body)
	}
}

// withHeader adds one header to every request.
type withHeader struct{ name, value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// The proxy's cost: GetItem through it and straight to the emulator (with
// the secret the proxy adds), by the same kind of client.
func BenchmarkGetItem(b *testing.B) {
	srv := ownServer(b)
	_, table := dynamotest.NewTableAt(b, srv.Endpoint)
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "bench"}, "sk": &types.AttributeValueMemberS{Value: "X"}}
	client := func(endpoint string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1",
			Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
			HTTPClient:  &http.Client{Transport: withHeader{dynamolocal.SecretHeader, srv.Secret()}}})
	}
	db := client(srv.Endpoint)
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: key}); err != nil {
		b.Fatal(err)
	}
	for range 2000 { // the emulator's JIT warms up before either is measured
		if _, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: key}); err != nil {
			b.Fatal(err)
		}
	}
	for _, via := range []struct{ name, endpoint string }{{"direct", srv.Backend()}, {"proxy", srv.Endpoint}} {
		b.Run(via.name, func(b *testing.B) {
			db := client(via.endpoint)
			for b.Loop() {
				if _, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: key}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The proxy hop alone, with a backend that answers at once: what the proxy
// adds to every call whatever the emulator's own speed.
func BenchmarkProxyHop(b *testing.B) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, `{"Item":{"pk":{"S":"bench"},"sk":{"S":"X"}}}`)
	}))
	b.Cleanup(backend.Close)
	target, _ := url.Parse(backend.URL)
	proxy := httptest.NewServer(dynamolocal.ProxyHandler(target, "secret", nil, log.New(io.Discard, "", 0)))
	b.Cleanup(proxy.Close)
	for _, via := range []struct{ name, endpoint string }{{"direct", backend.URL}, {"proxy", proxy.URL}} {
		b.Run(via.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, via.endpoint, strings.NewReader(`{"TableName":"t","Key":{}}`))
				req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
		})
	}
}
