package dependency_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"secscan/shared/apierr"
	"secscan/shared/dependency"
)

// small keeps the tests quick; the shape is Default's.
var small = dependency.Budget{Attempt: 200 * time.Millisecond, Operation: 700 * time.Millisecond, MaxAttempts: 3, MaxBackoff: 10 * time.Millisecond}

// dynamoDB is a real DynamoDB client, bounded as store.NewClient bounds it,
// talking to a local server that answers as answer says.
func dynamoDB(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*dynamodb.Client, *atomic.Int64) {
	t.Helper()
	var attempts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg, err := dependency.Config(context.Background(), srv.URL, small)
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
		o.DisableValidateResponseChecksum = true
		o.APIOptions = append(o.APIOptions, dependency.Bound(dependency.Database, small))
	}), &attempts
}

func getItem(ctx context.Context, db *dynamodb.Client) error {
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	return err
}

func awsError(status int, code string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-ErrorType", code)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"m"}`))
	}
}

// stall accepts the request and never answers (a paused process) until the
// client hangs up. Reading the body lets the server notice the hang-up.
func stall(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func wantUnavailable(t *testing.T, err error) *dependency.Error {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Kind != apierr.Unavailable || e.Detail != "The database is unavailable; retry shortly" || e.RetryAfter != dependency.RetryAfter {
		t.Fatalf("error %v, want the database's 503", err)
	}
	dep, ok := dependency.Failed(err)
	if !ok || dep.Service != dependency.Database || dep.Down <= 0 {
		t.Fatalf("cause %+v, want the database down for a while", dep)
	}
	return dep
}

func TestBound(t *testing.T) {
	t.Parallel()

	t.Run("a stalled service is abandoned per attempt and reported unavailable", func(t *testing.T) {
		t.Parallel()
		db, attempts := dynamoDB(t, stall)
		wantUnavailable(t, getItem(context.Background(), db))
		if n := attempts.Load(); n < 2 {
			t.Errorf("%d attempts, want the stalled one retried", n)
		}
	})

	t.Run("transient answers are retried, then unavailable", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			status int
			code   string
		}{
			{http.StatusBadRequest, "ThrottlingException"},
			{http.StatusBadRequest, "ProvisionedThroughputExceededException"},
			{http.StatusInternalServerError, "InternalServerError"},
			{http.StatusServiceUnavailable, "ServiceUnavailable"},
		} {
			db, attempts := dynamoDB(t, awsError(tt.status, tt.code))
			wantUnavailable(t, getItem(context.Background(), db))
			if n := attempts.Load(); n != int64(small.MaxAttempts) {
				t.Errorf("%s: %d attempts, want %d", tt.code, n, small.MaxAttempts)
			}
		}
	})

	t.Run("the request's own failures pass through", func(t *testing.T) {
		t.Parallel()
		db, attempts := dynamoDB(t, awsError(http.StatusBadRequest, "ConditionalCheckFailedException"))
		err := getItem(context.Background(), db)
		var ccf *types.ConditionalCheckFailedException
		if _, ok := apierr.As(err); ok || !errors.As(err, &ccf) || attempts.Load() != 1 {
			t.Fatalf("error %v after %d attempts, want the condition failure once", err, attempts.Load())
		}
	})

	t.Run("a caller that left is not an outage", func(t *testing.T) {
		t.Parallel()
		db, _ := dynamoDB(t, stall)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		err := getItem(ctx, db)
		if _, ok := apierr.As(err); ok || !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want the cancellation", err)
		}
	})

	t.Run("the outage clock runs across calls until the service answers", func(t *testing.T) {
		t.Parallel()
		var healthy atomic.Bool
		db, _ := dynamoDB(t, func(w http.ResponseWriter, r *http.Request) {
			if !healthy.Load() {
				stall(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			_, _ = w.Write([]byte(`{}`))
		})
		first := wantUnavailable(t, getItem(context.Background(), db))
		second := wantUnavailable(t, getItem(context.Background(), db))
		if second.Down <= first.Down {
			t.Errorf("down %v then %v, want the second outage measured from the first failure", first.Down, second.Down)
		}
		healthy.Store(true)
		if err := getItem(context.Background(), db); err != nil {
			t.Fatal(err)
		}
		healthy.Store(false)
		if third := wantUnavailable(t, getItem(context.Background(), db)); third.Down >= second.Down {
			t.Errorf("down %v after a success, want the clock restarted (was %v)", third.Down, second.Down)
		}
	})
}
