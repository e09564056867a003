// Command get-scan is the Lambda of the GetScanFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("GetScanFunction") }
