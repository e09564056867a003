// Command list-targets is the Lambda of the ListTargetsFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ListTargetsFunction") }
