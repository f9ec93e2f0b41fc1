package launch_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

type env struct {
	svc *launch.Service
	mkt market.Store
	dev *devnet.Devnet
}

// newEnv is the service on real parts: SQLite in memory, the local IPFS store, a devnet chain.
func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory})
	if err != nil {
		t.Fatal(err)
	}
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: "file::memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pins, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: dev.ChainID.Uint64(), Factory: dev.Addrs.Factory, Router: dev.Addrs.Router, WETH: dev.Addrs.WETH})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := launch.New(launch.Config{Store: db.Launch(), Pinner: pins, Builder: b, Chain: chain, Gateway: "https://gw.example/ipfs/",
		Now: func() time.Time { return time.Date(2026, 11, 23, 15, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return &env{svc: svc, mkt: db.Market(), dev: dev}
}

func png(n int) []byte {
	return append(append([]byte{}, pngHead...), bytes.Repeat([]byte{0x42}, n-len(pngHead))...)
}

func TestUploads(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	img := png(launch.MaxImage)
	up, err := e.svc.UploadImage(ctx, bytes.NewReader(img))
	if err != nil {
		t.Fatalf("exactly 5 MB: %v", err)
	}
	cid, _, _ := launch.CID(bytes.NewReader(img))
	want := launch.Upload{CID: cid, URI: "ipfs://" + cid, GatewayURL: "https://gw.example/ipfs/" + cid, Type: launch.PNG, Size: launch.MaxImage}
	if d := cmp.Diff(want, up); d != "" {
		t.Fatalf("upload (-want +got):\n%s", d)
	}
	if _, err := e.svc.UploadImage(ctx, bytes.NewReader(png(launch.MaxImage+1))); !errors.Is(err, curvekit.ErrTooLarge) {
		t.Fatalf("5 MB + 1: %v, want ErrTooLarge", err)
	}
	for _, bad := range [][]byte{[]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), []byte("<html><body>hi"), nil} {
		if _, err := e.svc.UploadImage(ctx, bytes.NewReader(bad)); !errors.Is(err, launch.ErrImageType) {
			t.Fatalf("upload %q: %v, want ErrImageType", bad, err)
		}
	}

	meta, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{Name: "Curve Cat", Symbol: "CCAT", ImageURL: &up.URI})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := e.svc.Object(ctx, meta.CID)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	wantDoc := `{"name":"Curve Cat","symbol":"CCAT","description":"","image":"` + up.URI + `","showName":true,"createdOn":"curvekit"}`
	if string(doc) != wantDoc || obj.Type != launch.JSON || meta.Type != launch.JSON || meta.Size != int64(len(wantDoc)) {
		t.Fatalf("metadata %s as %s (%+v)", doc, obj.Type, meta)
	}
	var p curvekit.Problems
	if _, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{}); !errors.As(err, &p) || len(p) != 2 {
		t.Fatalf("empty metadata: %v", err)
	}
}

// launched writes a token as the indexer would.
func (e *env) launched(t *testing.T, n int, creator common.Address, uri string) common.Address {
	t.Helper()
	tok := market.Token{Address: common.BigToAddress(new(big.Int).Lsh(big.NewInt(1), uint(100+n))), Curve: common.HexToAddress("0xc0"), Creator: creator,
		Quote: market.Asset{Symbol: "ETH", Decimals: 18}, Name: "T", Symbol: "T", URI: uri, Decimals: 18, LaunchBlock: uint64(n + 1), CreatedAt: 1}
	if err := e.mkt.Apply(context.Background(), &market.Batch{Cursor: market.Cursor{Block: uint64(n + 1), Hash: common.Hash{byte(n + 1)}}, Launches: []market.Token{tok}}); err != nil {
		t.Fatal(err)
	}
	return tok.Address
}

func TestLogo(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	img := png(70_000)
	up, err := e.svc.UploadImage(ctx, bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{Name: "Logo", Symbol: "LOGO", ImageURL: &up.URI})
	if err != nil {
		t.Fatal(err)
	}
	noImage, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{Name: "Bare", Symbol: "BARE"})
	if err != nil {
		t.Fatal(err)
	}
	httpsImage, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{Name: "Far", Symbol: "FAR", ImageURL: ptr("https://img.example/x.png")})
	if err != nil {
		t.Fatal(err)
	}
	// The image's CID pinned as a document: a logo pointing at it is not an image.
	jsonAsImage, _, err := e.svc.UploadMetadata(ctx, launch.Metadata{Name: "Odd", Symbol: "ODD", ImageURL: ptr("ipfs://" + noImage.CID)})
	if err != nil {
		t.Fatal(err)
	}
	creator := common.HexToAddress("0xcc")
	good := e.launched(t, 0, creator, meta.URI)
	obj, err := e.svc.Logo(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if !bytes.Equal(got, img) || obj.Type != launch.PNG {
		t.Fatalf("logo: %d bytes as %s", len(got), obj.Type)
	}
	for i, uri := range []string{noImage.URI, httpsImage.URI, jsonAsImage.URI, "https://metadata.example/t.json", "ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq", ""} {
		tok := e.launched(t, i+1, creator, uri)
		if _, err := e.svc.Logo(ctx, tok); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("logo of a token with uri %q: %v, want ErrNotFound", uri, err)
		}
	}
	if _, err := e.svc.Logo(ctx, common.HexToAddress("0xdead")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("logo of an unknown token: %v", err)
	}
}

func TestEarningsDays(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	w := common.HexToAddress("0xcc")
	for _, days := range []int{-1, 366, 1000} {
		if _, err := e.svc.Earnings(ctx, launch.EarningsParams{Wallet: w, Days: days}); !errors.Is(err, launch.ErrDays) || !errors.Is(err, curvekit.ErrInvalid) {
			t.Fatalf("days %d: %v, want ErrDays", days, err)
		}
	}
	for _, c := range []struct{ days, want int }{{0, 30}, {1, 1}, {365, 365}} {
		got, err := e.svc.Earnings(ctx, launch.EarningsParams{Wallet: w, Days: c.days})
		if err != nil {
			t.Fatal(err)
		}
		end := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
		if got.Days != c.want || !got.To.Equal(end) || !got.From.Equal(end.AddDate(0, 0, -c.want)) || len(got.Assets) != 0 {
			t.Fatalf("days %d: %+v", c.days, got)
		}
	}
}

func TestComposeLaunchValidation(t *testing.T) {
	e := newEnv(t)
	from := e.dev.Accounts[0].Address
	_, err := e.svc.ComposeLaunch(context.Background(), launch.LaunchParams{From: from, Name: "", Symbol: "TOO-LONG-SYMBOL", URI: "javascript:alert(1)"})
	var p curvekit.Problems
	if !errors.As(err, &p) {
		t.Fatalf("ComposeLaunch: %v, want Problems", err)
	}
	want := curvekit.Problems{"name is required", "symbol must be at most 10 characters", "uri must be an ipfs:// URI from the metadata upload or an https URL"}
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("problems (-want +got):\n%s", d)
	}
	lim, err := e.svc.DailyLimit(context.Background(), from)
	if err != nil {
		t.Fatal(err)
	}
	want2 := launch.DailyLimit{Wallet: from, Tier: curvekit.TierFree, Limit: 3, Remaining: 3, CanLaunch: true, ResetsAt: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	if d := cmp.Diff(want2, lim); d != "" {
		t.Fatalf("daily limit of a wallet without launches today (-want +got):\n%s", d)
	}
}
