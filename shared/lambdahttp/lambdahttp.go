// Package lambdahttp runs a net/http handler as a Lambda function behind an
// API Gateway HTTP API (payload format 2.0), through aws-lambda-go-api-proxy.
// It is the only place that knows the adapter, so it can be swapped.
package lambdahttp

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"secscan/shared/httpapi"
)

// Handler converts h into a Lambda handler. API Gateway has already matched
// the route, so the event's path parameters become the request's path values
// (r.PathValue("id")) exactly as the local ServeMux sets them.
func Handler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var accessor core.RequestAccessorV2
	return func(ctx context.Context, event events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		req, err := accessor.EventToRequestWithContext(ctx, event)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusBadRequest,
				Headers: map[string]string{"Content-Type": "application/json; charset=utf-8"},
				Body:    `{"detail":"Malformed request"}`}, nil
		}
		for name, value := range event.PathParameters {
			req.SetPathValue(name, value)
		}
		if id := event.RequestContext.RequestID; id != "" {
			req = req.WithContext(httpapi.WithRequestID(req.Context(), id))
		}
		w := core.NewProxyResponseWriterV2()
		h.ServeHTTP(w, req)
		return w.GetProxyResponse()
	}
}

// Start serves h as this process's Lambda function.
func Start(h http.Handler) { lambda.Start(Handler(h)) }
