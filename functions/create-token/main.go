// Command create-token is the Lambda of the CreateTokenFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("CreateTokenFunction") }
