// Package scanenv builds the api.API of the functions that start scans
// (create a scan, run a schedule now or when due): apienv's, with the
// environment's Step Functions starter. Only these functions link its client.
package scanenv

import (
	"context"

	"secscan/shared/api"
	"secscan/shared/api/apienv"
	"secscan/shared/lambdaenv"
	"secscan/shared/stepfn"
)

// Load is apienv.Load with Scans set. A configuration error stops the process.
func Load() *api.API {
	a, env := apienv.Load()
	a.Scans = lambdaenv.Must(stepfn.StarterFromConfig(context.Background(), env.Config))
	return a
}
