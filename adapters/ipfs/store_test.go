package ipfs_test

import (
	"testing"

	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/launch/launchtest"
)

const vectors = "../../testdata/kubo-cids.txt"

func TestStore(t *testing.T) {
	launchtest.RunPinner(t, vectors, func(t *testing.T) launch.Pinner {
		s, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
