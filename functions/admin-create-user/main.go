// Command admin-create-user is the Lambda of the AdminCreateUserFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("AdminCreateUserFunction") }
