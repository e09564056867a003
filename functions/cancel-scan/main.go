// Command cancel-scan is the Lambda of the CancelScanFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("CancelScanFunction") }
