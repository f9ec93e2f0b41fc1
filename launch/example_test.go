package launch_test

import (
	"fmt"
	"strings"

	"github.com/curvekit/curvekit/launch"
)

// The CID of an upload, as `ipfs add --cid-version=1` gives it, computed while the content streams.
func ExampleCID() {
	cid, n, err := launch.CID(strings.NewReader("hello"))
	if err != nil {
		panic(err)
	}
	fmt.Println(cid, n)
	// Output: bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq 5
}
