// Command scan-agent is the Lambda of ScanAgentFunction in template.yaml: the scan agent, called
// by the scan state machine with one action per Task state.
package main

import "secscan/shared/app"

func main() { app.ServeAgent() }
