// Command health is the Lambda of the HealthFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("HealthFunction") }
