package app

import (
	"github.com/curvekit/curvekit"

	"context"
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/launch"
)

// launchesPerDay are the daily launch caps by tier: enforced by the launch service and shown by
// GET /config.
var launchesPerDay = map[curvekit.Tier]int{curvekit.TierFree: 3, curvekit.TierPro: 25}

// wireLaunch builds the launch service: uploads pinned to a Kubo node with --ipfs-api, else to the
// local content-addressed store (--ipfs-dir, by default beside the database) that GET /ipfs/:cid
// serves; tiers from the accounts; fees from the factory.
func (a *App) wireLaunch(ctx context.Context) error {
	var pinner launch.Pinner
	if a.Config.IPFSAPI != "" {
		k, err := ipfs.NewKubo(ipfs.KuboConfig{API: a.Config.IPFSAPI})
		if err != nil {
			return err
		}
		pinner = k
		a.ready = append(a.ready, httpapi.ReadyCheck{Name: "ipfs", Check: func(ctx context.Context) error {
			if err := k.Ping(ctx); err != nil {
				return &httpapi.Unready{Reason: "IPFS node unreachable", Err: err}
			}
			return nil
		}})
	} else {
		dir := a.Config.IPFSDir
		if dir == "" {
			dir = a.sidePath(".ipfs")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("--ipfs-dir: %w", err)
		}
		st, err := ipfs.NewStore(ipfs.StoreConfig{Dir: dir})
		if err != nil {
			return err
		}
		pinner = st
	}
	gateway := a.Config.IPFSGateway
	if gateway == "" {
		gateway = a.publicURL() + "/ipfs/"
	}
	params, _, err := a.Chain.LaunchParams(ctx, common.Address{})
	if err != nil {
		return err
	}
	poolFee, err := a.Chain.PoolFeeBps(ctx)
	if err != nil {
		return err
	}
	var tiers launch.Tiers = launch.StaticTiers{}
	if a.Accounts != nil {
		tiers = launch.TiersFunc(func(ctx context.Context, w common.Address) (curvekit.Tier, error) {
			t, err := a.Accounts.Tier(ctx, w)
			return curvekit.Tier(t), err
		})
	}
	a.Launch, err = launch.New(launch.Config{
		Store: a.DB.Launch(), Pinner: pinner, Builder: a.Builder, Chain: a.Chain, Tiers: tiers,
		LaunchesPerDay: launchesPerDay,
		Fees:           launch.Fees{CurveBps: params.FeeBps, CreatorShareBps: params.CreatorShareBps, PoolBps: poolFee},
		Gateway:        gateway,
	})
	return err
}
