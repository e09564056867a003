// Package dynamolocal starts the official DynamoDB Local (the jar shipped by
// the npm package amplify-dynamodb-simulator, installed in infra/local from
// its lockfile) in memory on a free loopback port, answering only loopback
// Hosts (LoopbackDynamoDB.java), and creates tables from
// template.yaml. The local stack and the tests use it.
package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/smithy-go"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/infra/local/loopback"
	"secscan/shared/samtemplate"
)

// hostsEnv names, comma-separated, the hosts the emulator accepts besides
// loopback ones (LoopbackDynamoDB.java).
const hostsEnv = "SECSCAN_DYNAMODB_HOSTS"

// Server is a running DynamoDB Local.
type Server struct {
	Endpoint string
	cmd      *exec.Cmd
	done     chan error
}

// InstallHint says how to get what Start needs.
const InstallHint = "run `make deps` (npm ci in infra/local installs DynamoDB Local) and make sure `java` (a JDK 17+, e.g. Debian's openjdk-17-jdk-headless) is on PATH"

// Start launches DynamoDB Local in memory from localDir (the infra/local
// folder). Output goes to logw. The process dies with its parent
// (Pdeathsig), so an interrupted test run leaves nothing behind.
func Start(ctx context.Context, localDir string, logw io.Writer) (*Server, error) {
	return StartAt(ctx, localDir, "", logw)
}

// StartAt is Start with the database in the folder dbPath (it survives the
// process), or in memory when dbPath is "".
func StartAt(ctx context.Context, localDir, dbPath string, logw io.Writer) (*Server, error) {
	localDir, err := filepath.Abs(localDir)
	if err != nil {
		return nil, err
	}
	emulator := filepath.Join(localDir, "node_modules", "amplify-dynamodb-simulator", "emulator")
	jar := filepath.Join(emulator, "DynamoDBLocal.jar")
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("DynamoDB Local not found at %s: %s", jar, InstallHint)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("java not found: %s", InstallHint)
	}
	port, err := localPort()
	if err != nil {
		return nil, err
	}
	storage, err := storageArgs(dbPath)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	// make sam-local's containers (a fixed DYNAMODB_LOCAL_PORT) call it by Docker's name.
	var names []string
	if os.Getenv("DYNAMODB_LOCAL_PORT") != "" {
		names = []string{loopback.DockerHost}
	}
	s, err := launch(java, jar, emulator, localDir, storage, port, logw, names)
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx, 60*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// launch starts the emulator on 127.0.0.1:port, answering only loopback
// Hosts on that port and names (LoopbackDynamoDB.java).
func launch(java, jar, emulator, localDir string, storage []string, port int, logw io.Writer, names []string) (*Server, error) {
	lib := filepath.Join(emulator, "DynamoDBLocal_lib")
	// The launcher binds 127.0.0.1 only (the jar itself has no bind flag).
	args := []string{"-Djava.library.path=" + lib, "-Xmx512m",
		"-cp", jar + string(os.PathListSeparator) + filepath.Join(lib, "*"),
		filepath.Join(localDir, "dynamodb", "LoopbackDynamoDB.java")}
	args = append(append(args, storage...), "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port))
	cmd := exec.Command(java, args...)
	// The jar turns telemetry on unless DDB_LOCAL_TELEMETRY=0, whatever
	// -disableTelemetry says: with it on, every start writes an installation
	// id to dynamodb-local-metadata.json in the working directory and builds a
	// Pinpoint client that reaches out to AWS. Off, nothing is written or sent.
	cmd.Env = append(os.Environ(), "DDB_LOCAL_TELEMETRY=0", hostsEnv+"="+strings.Join(names, ","))
	cmd.Stdout, cmd.Stderr = logw, logw
	// It writes dynamodb-local-metadata.json where it runs: not in the repository.
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	return s, nil
}

// localPort is the port to serve on: DYNAMODB_LOCAL_PORT fixes it (sam
// local's containers reach it at a known address: infra/env.local.json); by
// default (0) any free one.
func localPort() (int, error) {
	v := os.Getenv("DYNAMODB_LOCAL_PORT")
	if v == "" {
		return 0, nil
	}
	port, err := strconv.Atoi(v)
	if err != nil || port < 1 || port > 65535 {
		return 0, fmt.Errorf("DYNAMODB_LOCAL_PORT must be a port number, got %q", v)
	}
	return port, nil
}

// storageArgs are the emulator's flags for a database in the folder dbPath,
// or in memory when dbPath is "".
func storageArgs(dbPath string) ([]string, error) {
	if dbPath == "" {
		return []string{"-inMemory"}, nil
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, err
	}
	return []string{"-dbPath", abs}, nil
}

// waitReady polls until the emulator answers HTTP (any status).
func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-s.done:
			return fmt.Errorf("DynamoDB Local exited during start-up: %v (%s)", err, InstallHint)
		case <-ctx.Done():
			return fmt.Errorf("DynamoDB Local did not answer on %s within %s", s.Endpoint, limit)
		case <-tick.C:
			if res, err := client.Get(s.Endpoint); err == nil {
				res.Body.Close()
				return nil
			}
		}
	}
}

// Pause freezes the process (SIGSTOP), as a stalled database would be: the
// kernel still accepts connections and requests, and nothing answers them
// until Resume. Fault tests use it on a server they started themselves.
func (s *Server) Pause() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume lets a paused process run again (SIGCONT); it then answers what
// queued up meanwhile.
func (s *Server) Resume() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) }

// Stop ends the process (and its group), paused or not, and waits for it.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	_ = s.Resume() // a paused process acts on SIGTERM only once it runs
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// createAttempts bounds CreateTable's retries after a timeout.
const createAttempts = 5

// CreateTables creates every table of the template (the logical id "Table"
// gets name; others get name-<logical id>), waits until they are active and
// turns TTL on where the template does. A table that exists already (make
// run's data folder) is kept with its items and gains the global secondary
// indexes the template added since it was made.
func CreateTables(ctx context.Context, db *dynamodb.Client, tpl *samtemplate.Template, name string) error {
	defs, err := tpl.Tables()
	if err != nil {
		return err
	}
	for logical, def := range defs {
		tableName := name
		if logical != "Table" {
			tableName = name + "-" + logical
		}
		in := def.Create
		in.TableName = aws.String(tableName)
		if err := createTable(ctx, db, &in); err != nil {
			return fmt.Errorf("create table %s: %w", tableName, err)
		}
		if err := addMissingIndexes(ctx, db, &in); err != nil {
			return fmt.Errorf("indexes of %s: %w", tableName, err)
		}
		if err := enableTTL(ctx, db, tableName, def.TTLAttribute); err != nil {
			return err
		}
	}
	return nil
}

// createTable creates the table unless it exists, and waits until it is active.
func createTable(ctx context.Context, db *dynamodb.Client, in *dynamodb.CreateTableInput) error {
	// DynamoDB Local on a busy machine can take longer than the client's
	// per-call timeout to create a table: try again (a table the timed out
	// call did create answers ResourceInUse, and is waited for).
	var err error
	for attempt := 1; ; attempt++ {
		_, err = db.CreateTable(ctx, in)
		var exists *types.ResourceInUseException
		if errors.As(err, &exists) {
			err = nil
		}
		var apiErr smithy.APIError
		if err == nil || errors.As(err, &apiErr) || ctx.Err() != nil || attempt == createAttempts {
			break
		}
	}
	if err != nil {
		return err
	}
	return waitActive(ctx, db, *in.TableName)
}

func waitActive(ctx context.Context, db *dynamodb.Client, table string) error {
	waiter := dynamodb.NewTableExistsWaiter(db)
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &table}, 30*time.Second); err != nil {
		return fmt.Errorf("wait for table %s: %w", table, err)
	}
	return nil
}

// addMissingIndexes creates, one at a time as DynamoDB requires, the global
// secondary indexes of in that the existing table lacks.
func addMissingIndexes(ctx context.Context, db *dynamodb.Client, in *dynamodb.CreateTableInput) error {
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName})
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, g := range desc.Table.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = true
	}
	for _, g := range in.GlobalSecondaryIndexes {
		if have[aws.ToString(g.IndexName)] {
			continue
		}
		_, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:            in.TableName,
			AttributeDefinitions: in.AttributeDefinitions,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection,
				ProvisionedThroughput: g.ProvisionedThroughput, OnDemandThroughput: g.OnDemandThroughput,
			}}},
		})
		if err != nil {
			return fmt.Errorf("add index %s: %w", aws.ToString(g.IndexName), err)
		}
		if err := waitIndexActive(ctx, db, *in.TableName, aws.ToString(g.IndexName)); err != nil {
			return err
		}
	}
	return nil
}

// waitIndexActive waits, at most 30 s, until the new index has been
// back-filled and can be queried (the table itself stays ACTIVE meanwhile).
func waitIndexActive(ctx context.Context, db *dynamodb.Client, table, index string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		active, err := indexActive(ctx, db, table, index)
		if err != nil || active {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("index %s of %s not active after 30 s", index, table)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// indexActive says whether the table's index can be queried.
func indexActive(ctx context.Context, db *dynamodb.Client, table, index string) (bool, error) {
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(desc.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
		return aws.ToString(g.IndexName) == index && g.IndexStatus == types.IndexStatusActive
	}), nil
}

// enableTTL turns TTL on attribute unless it is on already ("" : no TTL).
func enableTTL(ctx context.Context, db *dynamodb.Client, table, attribute string) error {
	if attribute == "" {
		return nil
	}
	// A table kept from an earlier run (make run's data folder) has it on.
	ttl, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &table})
	if err != nil {
		return fmt.Errorf("ttl of %s: %w", table, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus == types.TimeToLiveStatusEnabled {
		return nil
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: &table,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attribute), Enabled: aws.Bool(true)}})
	if err != nil {
		return fmt.Errorf("ttl on %s: %w", table, err)
	}
	return nil
}
