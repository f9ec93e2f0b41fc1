package httpapi

import (
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
)

// The launch and the fee claim composed for a wallet, as build-tx composes a trade: public,
// unsigned, for the wallet owner to confirm. A page with a browser wallet needs no session or key
// to launch or claim; the daily limit and the creator check hold all the same.

// launchTxBody is POST /launch/build-tx's body.
type launchTxBody struct {
	// From is the launching wallet: the creator, whose daily limit applies.
	From   *string `json:"from" openapi:"required"`
	Name   *string `json:"name" openapi:"required"`
	Symbol *string `json:"symbol" openapi:"required"`
	// URI is the metadata's uri from POST /launch/metadata, or an https URL.
	URI *string `json:"uri" openapi:"required"`
	// Pairing is ETH (default) or the address of a pairing asset of GET /config.
	Pairing *string `json:"pairing"`
	// InitialBuy is a first buy in whole units of the pairing asset, an exact decimal string.
	InitialBuy *string `json:"initialBuy"`
}

// launchTxJSON is a composed launch: the factory call, and the ERC-20 approval to send first when
// a first buy pays with one.
type launchTxJSON struct {
	To       string        `json:"to"`
	Data     string        `json:"data"`
	Value    string        `json:"value"`
	ChainID  uint64        `json:"chainId"`
	From     string        `json:"from"`
	Gas      string        `json:"gas,omitempty"`
	Approval *approvalJSON `json:"approval"`
	Pairing  assetJSON     `json:"pairing"`
	// Issues are what would stop from sending the launch as it stands, as build-tx's.
	Issues *issuesJSON `json:"issues"`
}

// claimTxBody is POST /launch/claim-tx's body.
type claimTxBody struct {
	From  *string `json:"from" openapi:"required"`
	Token *string `json:"token" openapi:"required"`
}

// claimTxJSON is a composed claimCreatorFees() and what it pays out.
type claimTxJSON struct {
	To        string    `json:"to"`
	Data      string    `json:"data"`
	Value     string    `json:"value"`
	ChainID   uint64    `json:"chainId"`
	From      string    `json:"from"`
	Gas       string    `json:"gas,omitempty"`
	Token     string    `json:"token"`
	Symbol    string    `json:"symbol"`
	Asset     assetJSON `json:"asset"`
	Claimable string    `json:"claimable"`
}

// bodyAddress checks a required address field, adding its problem to probs.
func bodyAddress(v *string, field string, probs *curvekit.Problems) common.Address {
	if v == nil {
		*probs = append(*probs, field+" is required")
		return common.Address{}
	}
	a, ok := parseAddress(*v)
	if !ok || a == (common.Address{}) {
		*probs = append(*probs, field+" must be an address: 0x followed by 40 hex digits, not zero")
	}
	return a
}

func (s *Server) launchTx(w http.ResponseWriter, req bunrouter.Request) error {
	var b launchTxBody
	if err := decodeJSON(w, req.Request, &b); err != nil {
		return err
	}
	var probs curvekit.Problems
	from := bodyAddress(b.From, "from", &probs)
	str := func(p *string, field string) string {
		if p == nil {
			probs = append(probs, field+" is required")
			return ""
		}
		return *p
	}
	name, symbol, uri := str(b.Name, "name"), str(b.Symbol, "symbol"), str(b.URI, "uri")
	pairing, ok := s.pairing(b.Pairing)
	if !ok {
		probs = append(probs, "pairing must be ETH or the address of a pairing asset in GET /config quoteAssets")
	}
	var first uint256.Int
	if b.InitialBuy != nil && *b.InitialBuy != "" && ok {
		v, err := curvekit.ParseAmount(*b.InitialBuy, pairing.Decimals)
		if err != nil {
			probs = append(probs, "initialBuy: "+strings.TrimPrefix(err.Error(), curvekit.ErrInvalid.Error()+": "))
		}
		first = v
	}
	if err := problemsErr(probs); err != nil {
		return err
	}
	// The allowance is left unknown: an ERC-20 first buy then always comes with its approval,
	// which costs gas when redundant, where a missing one would make the launch revert. The first
	// buy needs no minimum out: it trades on a curve created in the same transaction, which
	// nobody can trade on before it.
	p := launch.LaunchParams{From: from, Name: name, Symbol: symbol, URI: uri, Quote: pairing.Address, InitialBuy: first}
	plan, err := s.cfg.Launch.ComposeLaunch(req.Context(), p)
	if err != nil {
		return err
	}
	out := launchTxJSON{ChainID: plan.Tx.ChainID, Pairing: assetOf(pairing)}
	out.To, out.Data, out.Value, out.From, out.Gas = txFields(&plan.Tx)
	if a := plan.Approval; a != nil {
		if out.Approval, err = approvalOf(a, pairing.Decimals); err != nil {
			return err
		}
	}
	// What leaves the wallet: the launch fee and an ETH first buy as value, or the first buy in
	// the ERC-20 (whose allowance is not read: its approval always comes first).
	need := first
	if pairing.Address == (common.Address{}) {
		need = plan.Tx.Value
	}
	pr := principalOf(req)
	is, err := s.cfg.Market.IssuesOf(req.Context(), &market.IssuesParams{From: from, Owner: pr != nil && pr.Wallet == from,
		Asset: pairing.Address, Decimals: pairing.Decimals, Need: need, Plan: &plan})
	if err != nil {
		return err
	}
	out.Issues = issuesOf(&is)
	return writeJSON(w, http.StatusOK, out)
}

// pairing resolves the pairing field: absent, empty or ETH is native ether; otherwise one of
// the configured pairing assets by address.
func (s *Server) pairing(v *string) (market.Asset, bool) {
	if v == nil || *v == "" || strings.EqualFold(*v, "ETH") {
		return market.Asset{Symbol: "ETH", Decimals: 18}, true
	}
	a, ok := parseAddress(*v)
	if !ok {
		return market.Asset{}, false
	}
	for _, q := range s.cfg.Settings.QuoteAssets {
		if q.Address == a && a != (common.Address{}) {
			return q, true
		}
	}
	return market.Asset{}, false
}

func (s *Server) claimTx(w http.ResponseWriter, req bunrouter.Request) error {
	var b claimTxBody
	if err := decodeJSON(w, req.Request, &b); err != nil {
		return err
	}
	var probs curvekit.Problems
	from := bodyAddress(b.From, "from", &probs)
	token := bodyAddress(b.Token, "token", &probs)
	if err := problemsErr(probs); err != nil {
		return err
	}
	c, err := s.cfg.Launch.ComposeClaim(req.Context(), launch.ClaimParams{From: from, Token: token})
	if err != nil {
		return err
	}
	q := c.Token.Quote
	out := claimTxJSON{ChainID: c.Tx.ChainID, Token: c.Token.Address.Hex(), Symbol: c.Token.Symbol,
		Asset: assetOf(q), Claimable: amount(&c.Claimable, q.Decimals)}
	out.To, out.Data, out.Value, out.From, out.Gas = txFields(&c.Tx)
	return writeJSON(w, http.StatusOK, out)
}
