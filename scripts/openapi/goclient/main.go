// Command goclient lists tokens through the Go client oapi-codegen generates from the server's
// OpenAPI document (into ./api, by scripts/openapi-check): it proves the document generates a
// client that compiles.
package main

import (
	"context"
	"fmt"
	"os"

	"example.com/curvekitclient/api"
)

func main() {
	c, err := api.NewClientWithResponses(os.Args[1])
	if err != nil {
		panic(err)
	}
	r, err := c.ListTokensWithResponse(context.Background(), &api.ListTokensParams{})
	if err != nil {
		panic(err)
	}
	for _, t := range r.JSON200.Tokens {
		fmt.Println(t.Symbol, t.Address)
	}
}
