// Command admin-create-user is AdminCreateUserFunction in template.yaml: POST /api/admin/users.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.AdminCreateUser())
}
