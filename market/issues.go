package market

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/txbuild"
)

// Issues are what would stop a wallet from sending a build as it stands, as 0x's quote API
// reports them beside the transaction: the wallet's balance and allowance read from the chain,
// whether the transaction could be run for the wallet, and, for the account's owner only, what
// the account's settings would refuse.
type Issues struct {
	// Balance is set when the wallet holds less of the asset the trade spends than it spends.
	Balance *BalanceIssue
	// Allowance is set when the spender may pull less than the trade spends; the build's
	// approval fixes it.
	Allowance *AllowanceIssue
	// SimulationIncomplete reports that the transaction could not be run against the chain for
	// the wallet (an approval must be mined first, the wallet cannot pay, the chain cannot be
	// read), so it may revert for a reason no issue names.
	SimulationIncomplete bool
	// Refusals are what the account's settings would refuse, one per step, with the code the
	// send would get: nil when they were not checked (the caller does not own the wallet),
	// empty when they refuse nothing.
	Refusals []Refusal
}

// BalanceIssue is a balance short of what a transaction spends. Asset is the ERC-20's address;
// the zero address is ETH.
type BalanceIssue struct {
	Asset            common.Address
	Decimals         uint8
	Actual, Expected uint256.Int
}

// AllowanceIssue is an allowance short of what a transaction spends.
type AllowanceIssue struct {
	Asset, Spender   common.Address
	Decimals         uint8
	Actual, Expected uint256.Int
}

// Step names a transaction of a build: the approval, sent first, or the transaction itself.
type Step string

const (
	StepApproval    Step = "approval"
	StepTransaction Step = "transaction"
)

// Refusal is what the account's settings would answer one step's send.
type Refusal struct {
	Step    Step
	Code    curvekit.Code
	Message string
}

// IssuesParams is what a build spends, for IssuesOf.
type IssuesParams struct {
	// From is the sending wallet.
	From common.Address
	// Owner: the caller is authenticated as the account whose wallet is From, so the account's
	// settings are checked too. Never set it for anyone else: the refusals describe the settings.
	Owner bool
	// Asset is what the transaction spends (the zero address for ETH), Need how much, Decimals
	// its decimals.
	Asset    common.Address
	Decimals uint8
	Need     uint256.Int
	// Spender and Allowance are the ERC-20 spender and its allowance when one was read.
	Spender   common.Address
	Allowance *uint256.Int
	Plan      *txbuild.Plan
}

// IssuesOf reads the issues p.From would hit sending p.Plan: its balance of the spent asset
// (from the chain, when the Service has Live), the allowance already read, whether the plan
// was run (it carries a gas estimate) and, for the owner, the account's refusals.
func (s *Service) IssuesOf(ctx context.Context, p *IssuesParams) (Issues, error) {
	var is Issues
	if s.cfg.Live == nil {
		is.SimulationIncomplete = true
	} else {
		have, err := s.cfg.Live.Balance(ctx, p.Asset, p.From)
		if err != nil {
			return Issues{}, fmt.Errorf("market: read balance: %w", err)
		}
		if have.Lt(&p.Need) {
			is.Balance = &BalanceIssue{Asset: p.Asset, Decimals: p.Decimals, Actual: have, Expected: p.Need}
		}
	}
	if p.Allowance != nil && p.Allowance.Lt(&p.Need) {
		is.Allowance = &AllowanceIssue{Asset: p.Asset, Spender: p.Spender, Decimals: p.Decimals, Actual: *p.Allowance, Expected: p.Need}
	}
	if p.Plan.Tx.Gas == 0 {
		is.SimulationIncomplete = true
	}
	if !p.Owner || s.cfg.Guard == nil {
		return is, nil
	}
	var txs []txbuild.Tx
	var steps []Step
	if p.Plan.Approval != nil {
		txs, steps = append(txs, *p.Plan.Approval), append(steps, StepApproval)
	}
	txs, steps = append(txs, p.Plan.Tx), append(steps, StepTransaction)
	refused, err := s.cfg.Guard.Refusals(ctx, p.From, txs)
	if err != nil {
		return Issues{}, fmt.Errorf("market: the account's settings: %w", err)
	}
	is.Refusals = []Refusal{}
	for i, err := range refused {
		if err != nil {
			is.Refusals = append(is.Refusals, Refusal{Step: steps[i], Code: curvekit.CodeOf(err), Message: curvekit.Reason(err)})
		}
	}
	return is, nil
}
