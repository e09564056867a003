// Command scan-step is the Lambda of ScanStepFunction in template.yaml: the scan agent, called
// by the scan state machine with one action per Task state.
package main

import "secscan/shared/app"

func main() { app.ServeAgent() }
