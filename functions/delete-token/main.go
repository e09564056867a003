// Command delete-token is the Lambda of the DeleteTokenFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("DeleteTokenFunction") }
