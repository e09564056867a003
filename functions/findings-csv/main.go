// Command findings-csv is the Lambda of the FindingsCSVFunction endpoint in template.yaml.
package main

import "secscan/shared/app"

func main() { app.ServeLambda("FindingsCSVFunction") }
