// Command verify-target is the Lambda of the VerifyTargetFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("VerifyTargetFunction") }
