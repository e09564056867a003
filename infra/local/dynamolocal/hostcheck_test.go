package dynamolocal_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/dynamolocal"
	"secscan/infra/local/dynamotest"
	"secscan/infra/local/loopback"
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
// own name in Host. DynamoDB Local has no authentication, so unchecked such
// a page reads and writes the whole table; now nothing is listed, read or
// written, while loopback Hosts and the SDK work as before.
func TestDynamoDBAnswersOnlyLoopbackHosts(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	db, table := dynamotest.NewTable(t) // the SDK works
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
		{"127.0.0.1:" + otherPort(port), "", http.StatusMisdirectedRequest},
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

// The emulator's own check (LoopbackDynamoDB.java) gives every Host the
// verdict of the Go listeners' loopback.Host on its port.
func TestEmulatorHostCheckIsLoopbackHost(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	u, _ := url.Parse(endpoint)
	port := u.Port()
	for _, host := range []string{
		"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port, "[::1]:" + port, "127.5.6.7:" + port,
		"[::ffff:127.0.0.1]:" + port, "127.0.0.1", "localhost", "[::1]",
		"rebind.example:" + port, "rebind.example", "localhost.rebind.example:" + port, "127.0.0.1.nip.io:" + port,
		"0.0.0.0:" + port, "192.168.1.10:" + port, "[::]:" + port, "[fe80::1%25lo]:" + port, "localhost.:" + port,
		"127.0.0.1:" + otherPort(port), "localhost:80", "[::1]:0", "127.0.0.1:" + port + ":1", "::1:" + port, "[::1]x",
		"999.0.0.1:" + port, "2130706433:" + port,
	} {
		status, body := call(t, endpoint, host, "", "ListTables", `{"Limit":1}`)
		if want := loopback.Host(host, port); (status == http.StatusOK) != want || !want && status != http.StatusMisdirectedRequest && status != http.StatusBadRequest {
			t.Errorf("ListTables with Host %q: %d %s; loopback.Host says %v", host, status, body, want)
		}
	}
}

// make sam-local's containers (a fixed DYNAMODB_LOCAL_PORT) call it by
// Docker's name: that name passes on its port, and only then.
func TestEmulatorAcceptsDockerHostWithFixedPort(t *testing.T) {
	root, err := dynamotest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	t.Setenv("DYNAMODB_LOCAL_PORT", port)
	srv, err := dynamolocal.Start(context.Background(), filepath.Join(root, "infra", "local"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for host, want := range map[string]int{
		"host.docker.internal:" + port:            http.StatusOK,
		"Host.Docker.Internal:" + port:            http.StatusOK,
		"host.docker.internal:" + otherPort(port): http.StatusMisdirectedRequest,
		"host.docker.internal":                    http.StatusMisdirectedRequest,
		"rebind.example:" + port:                  http.StatusMisdirectedRequest,
	} {
		if status, body := call(t, srv.Endpoint, host, "", "ListTables", `{}`); status != want {
			t.Errorf("ListTables with Host %q: %d %s, want %d", host, status, body, want)
		}
	}
	if status, _ := call(t, srv.Endpoint, "host.docker.internal:"+port, "http://host.docker.internal:"+port, "ListTables", `{}`); status != http.StatusForbidden {
		t.Errorf("ListTables with an Origin: %d, want 403", status)
	}
}

// otherPort is a valid port other than port (Jetty answers 400 to a Host
// with an invalid one before any handler runs).
func otherPort(port string) string {
	p, _ := strconv.Atoi(port)
	return strconv.Itoa(p%65535 + 1)
}
