// Command delete-target is the Lambda of the DeleteTargetFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("DeleteTargetFunction") }
