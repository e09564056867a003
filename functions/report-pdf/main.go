// Command report-pdf is the Lambda of the ReportPDFFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ReportPDFFunction") }
