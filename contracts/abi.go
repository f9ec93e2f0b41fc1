package contracts

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

//go:embed build/*.json
var artifacts embed.FS

// Artifact is one compiled contract: its ABI and creation bytecode.
type Artifact struct {
	Name string
	ABI  *abi.ABI
	// Bin is the creation bytecode, hex without 0x.
	Bin string
}

// Load returns the compiled artifact of the named contract ("BondingCurve", "Router", ...).
func Load(name string) (Artifact, error) {
	raw, err := artifacts.ReadFile("build/" + name + ".json")
	if err != nil {
		return Artifact{}, fmt.Errorf("contracts: no artifact %q: %w", name, err)
	}
	var a struct {
		ABI json.RawMessage `json:"abi"`
		Bin string          `json:"bin"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Artifact{}, fmt.Errorf("contracts: artifact %q: %w", name, err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(a.ABI)))
	if err != nil {
		return Artifact{}, fmt.Errorf("contracts: ABI of %q: %w", name, err)
	}
	return Artifact{Name: name, ABI: &parsed, Bin: strings.TrimPrefix(a.Bin, "0x")}, nil
}

func mustABI(name string) *abi.ABI {
	a, err := Load(name)
	if err != nil {
		panic(err) // the artifacts are embedded at build time; a failure here is a broken build
	}
	return a.ABI
}

// ABIs of the contracts that transactions are built for.
var (
	BondingCurveABI  = mustABI("BondingCurve")
	LaunchFactoryABI = mustABI("LaunchFactory")
	RouterABI        = mustABI("Router")
	PairABI          = mustABI("Pair")
	// ERC20ABI covers approve, allowance, balanceOf and transfer of any ERC-20 (the curve tokens
	// are plain OpenZeppelin ERC-20s).
	ERC20ABI = mustABI("CurveToken")
)
