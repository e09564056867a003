// Command create-target is the Lambda of the CreateTargetFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("CreateTargetFunction") }
