// Command list-tokens is the Lambda of the ListTokensFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("ListTokensFunction") }
