// Command admin-update-user is AdminUpdateUserFunction in template.yaml: PATCH /api/admin/users/{id}.
package main

import (
	"secscan/shared/api/apienv"
	"secscan/shared/lambdahttp"
)

func main() {
	a, _ := apienv.Load()
	lambdahttp.Start(a.AdminUpdateUser())
}
