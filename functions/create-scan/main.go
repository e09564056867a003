// Command create-scan is the Lambda of the CreateScanFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("CreateScanFunction") }
