// Command report-markdown is the Lambda of the ReportMarkdownFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ReportMarkdownFunction") }
