// Command me is the Lambda of the MeFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("MeFunction") }
