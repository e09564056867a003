// Command admin-update-user is the Lambda of the AdminUpdateUserFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("AdminUpdateUserFunction") }
