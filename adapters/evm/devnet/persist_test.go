package devnet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/google/go-cmp/cmp"
)

// snapshot is what a restart must keep.
type snapshot struct {
	Genesis, Head common.Hash
	Number        uint64
	Addrs         Addresses
	Tokens        [3]Launch
	Balances      map[string]string
}

func snap(t *testing.T, d *Devnet, holders []Account) snapshot {
	t.Helper()
	ctx := context.Background()
	g, err := d.Client.HeaderByNumber(ctx, common.Big0)
	if err != nil {
		t.Fatal(err)
	}
	h, err := d.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{
		Genesis: g.Hash(), Head: h.Hash(), Number: h.Number.Uint64(), Addrs: d.Addrs,
		Tokens: [3]Launch{d.ETHToken, d.USDToken, d.GraduatedToken}, Balances: map[string]string{},
	}
	for _, acc := range holders {
		for _, asset := range []common.Address{{}, d.Addrs.USD, d.ETHToken.Token, d.USDToken.Token} {
			s.Balances[fmt.Sprintf("%s/%s", acc.Address, asset)] = balance(t, d, asset, acc.Address).String()
		}
	}
	return s
}

func buyDETH(t *testing.T, d *Devnet, from Account, wei *big.Int) *types.Receipt {
	t.Helper()
	return send(t, d, from, d.ETHToken.Curve, wei, curveB.PackBuy(wei, big.NewInt(1), deadline(t, d)))
}

func TestRestartContinuesTheChain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "curvekit.db.devnet")
	d, err := Start(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d.Resumed {
		t.Fatal("a new Dir reports Resumed")
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the devnet directory: %v, mode %o; want 700", err, st.Mode().Perm())
	}
	trader := d.Accounts[5]
	buyDETH(t, d, trader, oneETH)
	send(t, d, trader, d.Addrs.USD, nil, tokenB.PackTransfer(d.Accounts[6].Address, big.NewInt(12_345)))
	before := snap(t, d, []Account{trader, d.Accounts[6]})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	d, err = Start(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %v at block %d", time.Since(began), before.Number)
	defer d.Close()
	if !d.Resumed {
		t.Fatal("restart did not resume the chain in Dir")
	}
	after := snap(t, d, []Account{trader, d.Accounts[6]})
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("restart changed the chain (-before +after):\n%s", diff)
	}

	// The chain goes on from the old head, on the old state: the trader approves and sells half.
	held := balance(t, d, d.ETHToken.Token, trader.Address)
	r := send(t, d, trader, d.ETHToken.Token, nil, tokenB.PackApprove(d.ETHToken.Curve, held))
	if r.BlockNumber.Uint64() != before.Number+1 {
		t.Fatalf("first transaction after restart in block %d, want %d", r.BlockNumber, before.Number+1)
	}
	send(t, d, trader, d.ETHToken.Curve, nil, curveB.PackSell(new(big.Int).Div(held, big.NewInt(2)), big.NewInt(1), deadline(t, d)))
	blk, err := d.Client.HeaderByNumber(context.Background(), r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if blk.ParentHash != before.Head {
		t.Fatalf("block after restart has parent %s, want the old head %s", blk.ParentHash, before.Head)
	}
	eq(t, "DETH after selling half", balance(t, d, d.ETHToken.Token, trader.Address), sub(held, div(held, big.NewInt(2))))
}

func TestRestartRefusesOtherSettings(t *testing.T) {
	dir := t.TempDir()
	d, err := Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{Dir: dir, Accounts: 5}); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("other settings: %v, want a refusal", err)
	}
	d, err = Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatalf("the refusal must leave the chain usable: %v", err)
	}
	d.Close()
}

func TestDirInUseIsRefused(t *testing.T) {
	dir := t.TempDir()
	d, err := Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if other, err := Start(Config{Dir: dir, Accounts: 4}); err == nil {
		other.Close()
		t.Fatal("a second devnet on the same Dir started")
	} else if !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second devnet: %v, want 'in use'", err)
	}
	buyDETH(t, d, d.Accounts[3], oneETH) // the first one is unharmed
}

func TestUnfinishedSetupStartsOver(t *testing.T) {
	dir := t.TempDir()
	d, err := Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	setupHead := snap(t, d, nil)
	buyDETH(t, d, d.Accounts[3], oneETH)
	d.Close()
	// Without the state file the chain counts as a setup that never finished.
	if err := os.Remove(filepath.Join(dir, stateFile)); err != nil {
		t.Fatal(err)
	}
	d, err = Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	again := snap(t, d, nil)
	if d.Resumed || again.Number != setupHead.Number || again.Head == setupHead.Head {
		t.Fatalf("resumed=%v head %d %s, want a new setup ending at block %d (not %s)", d.Resumed, again.Number, again.Head, setupHead.Number, setupHead.Head)
	}
	if again.Addrs != setupHead.Addrs || again.Genesis != setupHead.Genesis {
		t.Fatalf("a new setup has other addresses or genesis: %+v", again)
	}
}

// TestRestartAfterCrash kills a process that mines without Close and continues its chain: what
// was lost is at most the last few blocks, and what remains is a prefix of the dead process's chain.
func TestRestartAfterCrash(t *testing.T) {
	if dir := os.Getenv("CURVEKIT_DEVNET_CRASH_DIR"); dir != "" {
		crashChild(dir)
		return
	}
	dir := t.TempDir()
	d, err := Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestRestartAfterCrash$")
	cmd.Env = append(os.Environ(), "CURVEKIT_DEVNET_CRASH_DIR="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	mined := map[uint64]common.Hash{}
	var last uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "block" {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		mined[n], last = common.HexToHash(f[2]), n
	}
	if len(mined) != 100 {
		t.Fatalf("child reported %d blocks, want 100:\n%s", len(mined), out)
	}

	d, err = Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	head := snap(t, d, nil)
	t.Logf("the dead process mined up to block %d; the restart continues at %d", last, head.Number)
	if head.Number+16 < last {
		t.Fatalf("restart lost %d of the last blocks", last-head.Number)
	}
	if want, ok := mined[head.Number]; ok && want != head.Head {
		t.Fatalf("block %d is %s after the restart, the dead process mined %s", head.Number, head.Head, want)
	}
	buyDETH(t, d, d.Accounts[3], oneETH)
}

// crashChild mines 100 blocks on the devnet in dir, prints them and exits without closing it.
func crashChild(dir string) {
	d, err := Start(Config{Dir: dir, Accounts: 4})
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	to := d.Accounts[2].Address
	for range 100 {
		r, err := d.Send(ctx, d.Accounts[3].Key, &to, big.NewInt(1), nil)
		if err != nil {
			fmt.Println("send:", err)
			os.Exit(2)
		}
		fmt.Println("block", r.BlockNumber, r.BlockHash.Hex())
	}
	os.Exit(0)
}
