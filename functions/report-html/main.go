// Command report-html is the Lambda of the ReportHTMLFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ReportHTMLFunction") }
