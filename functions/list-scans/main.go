// Command list-scans is the Lambda of the ListScansFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ListScansFunction") }
