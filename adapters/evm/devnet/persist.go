package devnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"

	"github.com/curvekit/curvekit/contracts/bindings"
)

// stateFile, in Config.Dir, describes the devnet set up there. It is written once the setup's
// blocks are on disk, so its presence means the chain beside it holds a finished setup.
const stateFile = "devnet.json"

// stateVersion changes when the file's meaning does; another version is refused.
const stateVersion = 1

// state is what a restart needs and the chain cannot easily say: the settings the devnet was set
// up with and the addresses the setup produced.
type state struct {
	Version  int         `json:"version"`
	Settings settings    `json:"settings"`
	Genesis  common.Hash `json:"genesis"`
	// SetupBlock and SetupHash are the block that finished the setup: a chain that does not
	// hold it is not the one this file describes.
	SetupBlock     uint64      `json:"setupBlock"`
	SetupHash      common.Hash `json:"setupHash"`
	Addrs          Addresses   `json:"addresses"`
	ETHToken       Launch      `json:"ethToken"`
	USDToken       Launch      `json:"usdToken"`
	GraduatedToken Launch      `json:"graduatedToken"`
}

// settings are the parts of Config that decide the chain (everything but Dir).
type settings struct {
	Accounts   int                  `json:"accounts"`
	Balance    *big.Int             `json:"balance"`
	ETHParams  bindings.CurveParams `json:"ethParams"`
	USDParams  bindings.CurveParams `json:"usdParams"`
	PoolFeeBps uint16               `json:"poolFeeBps"`
	LaunchFee  *big.Int             `json:"launchFee"`
}

func settingsOf(c Config) settings {
	return settings{Accounts: c.Accounts, Balance: c.Balance, ETHParams: c.ETHParams, USDParams: c.USDParams, PoolFeeBps: c.PoolFeeBps, LaunchFee: c.LaunchFee}
}

func (s settings) equal(o settings) bool {
	a, errA := json.Marshal(s)
	b, errB := json.Marshal(o)
	return errA == nil && errB == nil && string(a) == string(b)
}

// startIn opens the chain kept in cfg.Dir and continues it, or sets a new devnet up there.
func (d *Devnet) startIn(ctx context.Context, cfg Config, genesis *core.Genesis) error {
	// The chain holds the devnet's keys' balances and every account's history: its owner's
	// only (a directory made by an older version is tightened too).
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return err
	}
	st, err := readState(cfg.Dir)
	if err == nil {
		return d.resume(ctx, cfg, genesis, st)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b, err := newBackend(cfg.Dir, genesis)
	if err != nil {
		return err
	}
	d.use(b)
	if d.Backend.eth.BlockChain().CurrentBlock().Number.Sign() != 0 {
		// A chain without the state file is one whose setup never finished (the process died
		// during it): start it again from nothing. The node's lock was ours, so no other
		// process is using the directory.
		if err := d.Backend.Close(); err != nil {
			return err
		}
		d.Backend = nil
		if err := os.RemoveAll(filepath.Join(cfg.Dir, chainDirName)); err != nil {
			return err
		}
		if b, err = newBackend(cfg.Dir, genesis); err != nil {
			return err
		}
		d.use(b)
	}
	if err := d.setup(ctx, cfg); err != nil {
		return err
	}
	head, err := d.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	g, err := d.Client.HeaderByNumber(ctx, common.Big0)
	if err != nil {
		return err
	}
	// Close writes the setup to disk before the state file says it is there; the chain is then
	// opened again for use.
	if err := d.Backend.Close(); err != nil {
		return err
	}
	d.Backend = nil
	st = state{
		Version: stateVersion, Settings: settingsOf(cfg), Genesis: g.Hash(),
		SetupBlock: head.Number.Uint64(), SetupHash: head.Hash(),
		Addrs: d.Addrs, ETHToken: d.ETHToken, USDToken: d.USDToken, GraduatedToken: d.GraduatedToken,
	}
	if err := writeState(cfg.Dir, st); err != nil {
		return err
	}
	if b, err = newBackend(cfg.Dir, genesis); err != nil {
		return err
	}
	d.use(b)
	return nil
}

// resume continues the chain that st describes.
func (d *Devnet) resume(ctx context.Context, cfg Config, genesis *core.Genesis, st state) error {
	if st.Version != stateVersion {
		return fmt.Errorf("%s was written by another version of the devnet (%d, want %d); delete %s to start a new chain",
			stateFile, st.Version, stateVersion, cfg.Dir)
	}
	if !st.Settings.equal(settingsOf(cfg)) {
		return fmt.Errorf("%s holds a devnet set up with other settings; delete it to start a new chain", cfg.Dir)
	}
	b, err := newBackend(cfg.Dir, genesis)
	if err != nil {
		return err
	}
	d.use(b)
	for _, want := range []struct {
		number uint64
		hash   common.Hash
	}{{0, st.Genesis}, {st.SetupBlock, st.SetupHash}} {
		h, err := d.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(want.number))
		if err != nil || h.Hash() != want.hash {
			return errors.Join(fmt.Errorf("the chain in %s is not the one %s describes (block %d); delete %s to start a new chain",
				cfg.Dir, stateFile, want.number, cfg.Dir), err)
		}
	}
	d.Addrs, d.ETHToken, d.USDToken, d.GraduatedToken = st.Addrs, st.ETHToken, st.USDToken, st.GraduatedToken
	d.Resumed = true
	return nil
}

func readState(dir string) (state, error) {
	var st state
	raw, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("read %s: %w", filepath.Join(dir, stateFile), err)
	}
	return st, nil
}

// writeState replaces the state file atomically: a crash leaves the old file or the new one.
func writeState(dir string, st state) error {
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, stateFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, stateFile))
}
