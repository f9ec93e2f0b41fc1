package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// The quote and build-tx endpoints answer a request they cannot serve with {error} and status
// 200 (SPEC 4.4); only a malformed path address (400) and an unknown token (404) are errors.
// They check in this order: the path, then what can be checked without the token (the type, the
// body's shape, slippage, recipient), then the token's existence, then the amount against the
// token's decimals and reserves.

// maxBodyBytes bounds a build-tx body; a real one is under 300 bytes.
const maxBodyBytes = 16 << 10

// tradeResult answers a service error of quote or build-tx: validation failures as {error} with
// status 200; anything else goes to the error table.
func tradeResult(w http.ResponseWriter, err error) error {
	if errors.Is(err, curvekit.ErrInvalid) {
		return writeValidation(w, err)
	}
	return err
}

func parseSide(s string) (curvekit.Side, error) {
	switch curvekit.Side(s) {
	case curvekit.Buy, curvekit.Sell:
		return curvekit.Side(s), nil
	}
	return "", invalid("type must be buy or sell")
}

// GET /tokens/:address/quote
func (s *Server) getQuote(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	side, amt, err := quoteParams(req)
	if err != nil {
		return tradeResult(w, err)
	}
	res, err := s.cfg.Market.Quote(req.Context(), addr, side, amt)
	if err != nil {
		return tradeResult(w, err)
	}
	return writeQuote(w, quoteAnswer{res.Token, &res.Quote})
}

func quoteParams(req bunrouter.Request) (curvekit.Side, string, error) {
	q := newQuery(req.URL)
	typ := q.str("type", string(curvekit.Buy))
	amt := q.str("amount", "1")
	if err := q.err(); err != nil {
		return "", "", err
	}
	side, err := parseSide(typ)
	return side, amt, err
}

// buildBody is the build-tx request. Fields are decoded raw so that each gets its own message:
// a JSON number for amount is refused (it would round in most clients' float64), while slippage
// may be a number or a string.
type buildBody struct {
	Type      json.RawMessage `json:"type"`
	Amount    json.RawMessage `json:"amount"`
	Slippage  json.RawMessage `json:"slippage"`
	Recipient json.RawMessage `json:"recipient"`
	From      json.RawMessage `json:"from"`
}

// POST /tokens/:address/build-tx
func (s *Server) buildTx(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	br, err := decodeBuild(w, req.Request)
	if err != nil {
		return tradeResult(w, err)
	}
	p := principalOf(req)
	if p != nil && br.Wallet == (common.Address{}) && p.Wallet != (common.Address{}) {
		// SPEC 4.4: without a recipient, a signed-in caller's trade is for their own wallet.
		br.Wallet, br.Recipient = p.Wallet, p.Wallet
	}
	// Chain facts (balance, allowance) are public; the account's settings are shown only to
	// the account that owns from.
	br.Owner = br.Issues && p != nil && p.Wallet != (common.Address{}) && p.Wallet == br.Wallet
	res, err := s.cfg.Market.BuildTx(req.Context(), addr, br)
	if err != nil {
		return tradeResult(w, err)
	}
	out, err := buildOf(&res)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func decodeBuild(w http.ResponseWriter, r *http.Request) (market.BuildRequest, error) {
	var br market.BuildRequest
	raw, err := readBody(w, r, maxBodyBytes)
	if errors.Is(err, curvekit.ErrTooLarge) {
		// SPEC 4.4: build-tx answers what it refuses as {error}, an oversized body included.
		return br, invalid("body is larger than %d bytes", maxBodyBytes)
	}
	if err != nil {
		return br, err
	}
	var body buildBody
	if err := decodeStrict(raw, &body); err != nil {
		return br, err
	}

	typ, ok, err := rawString(body.Type, "type")
	switch {
	case err != nil:
		return br, err
	case !ok:
		return br, invalid("type is required")
	}
	if br.Side, err = parseSide(typ); err != nil {
		return br, err
	}

	amt, ok, err := rawString(body.Amount, "amount")
	switch {
	case isJSONNumber(body.Amount):
		return br, invalid(`amount must be a string holding an exact decimal ("1.5"), not a JSON number`)
	case err != nil:
		return br, err
	case !ok:
		return br, invalid("amount is required")
	}
	br.Amount = amt

	br.SlippageBps = txbuild.DefaultSlippageBps
	if isJSONNumber(body.Slippage) {
		if br.SlippageBps, err = txbuild.ParseSlippage(string(body.Slippage)); err != nil {
			return br, slippageError(err)
		}
	} else if pct, ok, err := rawString(body.Slippage, "slippage"); err != nil {
		return br, invalid("slippage must be a percentage from 0 to 50 (a number or a string)")
	} else if ok {
		if br.SlippageBps, err = txbuild.ParseSlippage(pct); err != nil {
			return br, slippageError(err)
		}
	}

	rcpt, ok, err := rawString(body.Recipient, "recipient")
	if err != nil {
		return br, err
	}
	if ok {
		a, valid := parseAddress(rcpt)
		switch {
		case !valid:
			return br, invalid("recipient must be an address: 0x followed by 40 hex digits")
		case a == (common.Address{}):
			return br, invalid("recipient must not be the zero address")
		}
		// The recipient is the sending wallet (SPEC 4.4): it signs and receives.
		br.Wallet, br.Recipient = a, a
	}

	from, ok, err := rawString(body.From, "from")
	if err != nil {
		return br, err
	}
	if ok {
		a, valid := parseAddress(from)
		if !valid || a == (common.Address{}) {
			return br, invalid("from must be an address: 0x followed by 40 hex digits, not zero")
		}
		// The sending wallet, whose issues the answer reports; the output goes to the
		// recipient when one is given, else to from.
		br.Wallet, br.Issues = a, true
		if br.Recipient == (common.Address{}) {
			br.Recipient = a
		}
	}
	return br, nil
}

// slippageError keeps the rule in the message whatever ParseSlippage complained about.
func slippageError(error) error {
	return invalid("slippage must be a percentage from 0 to 50 with at most two decimals")
}

// rawString reads an optional JSON string field: ok is false when the field is absent or null,
// and any other JSON type is a validation error.
func rawString(raw json.RawMessage, field string) (string, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, invalid("%s must be a string", field)
	}
	return s, true, nil
}

func isJSONNumber(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	c := raw[0]
	return c == '-' || (c >= '0' && c <= '9')
}

func buildOf(r *market.BuildResult) (buildJSON, error) {
	_, outDecimals := inOutDecimals(&r.Token.Token, r.Quote.Side)
	out := buildJSON{
		ChainID: r.Plan.Tx.ChainID, Quote: quoteOf(&r.Token, &r.Quote),
		MinAmountOut: amount(&r.MinOut, outDecimals), Deadline: r.Deadline,
	}
	out.To, out.Data, out.Value, out.From, out.Gas = txFields(&r.Plan.Tx)
	if a := r.Plan.Approval; a != nil {
		decimals := r.Token.Decimals
		if a.To == r.Token.Quote.Address {
			decimals = r.Token.Quote.Decimals
		}
		ap, err := approvalOf(a, decimals)
		if err != nil {
			return buildJSON{}, err
		}
		out.Approval = ap
	}
	if r.Issues != nil {
		out.Issues = issuesOf(r.Issues)
	}
	return out, nil
}

// issuesOf is a build's issues as the API shows them: amounts in whole units of their asset.
func issuesOf(is *market.Issues) *issuesJSON {
	out := &issuesJSON{SimulationIncomplete: is.SimulationIncomplete}
	if b := is.Balance; b != nil {
		out.Balance = &balanceIssueJSON{Token: assetKey(b.Asset), Actual: amount(&b.Actual, b.Decimals), Expected: amount(&b.Expected, b.Decimals)}
	}
	if a := is.Allowance; a != nil {
		out.Allowance = &allowanceIssueJSON{Token: assetKey(a.Asset), Spender: a.Spender.Hex(), Actual: amount(&a.Actual, a.Decimals), Expected: amount(&a.Expected, a.Decimals)}
	}
	if is.Refusals != nil {
		settings := make([]settingsIssueJSON, len(is.Refusals))
		for i, r := range is.Refusals {
			settings[i] = settingsIssueJSON{Step: string(r.Step), Code: r.Code, Message: r.Message}
		}
		out.Settings = &settings
	}
	return out
}

// assetKey names an asset as the account's settings do: ETH, or the ERC-20's address.
func assetKey(a common.Address) string {
	if a == (common.Address{}) {
		return "ETH"
	}
	return a.Hex()
}

// approvalOf is an approval step as the API shows it, its spender and amount read back from the
// call data (in whole units of the approved asset, of the given decimals), so what is reported is
// exactly what the wallet will sign.
func approvalOf(a *txbuild.Tx, decimals uint8) (*approvalJSON, error) {
	spender, amt, ok := decodeApprove(a.Data)
	if !ok {
		return nil, fmt.Errorf("httpapi: approval step is not an approve call: %x", a.Data)
	}
	ap := &approvalJSON{ChainID: a.ChainID, Token: a.To.Hex(), Spender: spender.Hex(), Amount: amount(&amt, decimals)}
	ap.To, ap.Data, ap.Value, ap.From, _ = txFields(a)
	return ap, nil
}

// approveSelector is the selector of ERC-20 approve(address,uint256).
var approveSelector = [4]byte{0x09, 0x5e, 0xa7, 0xb3}

// decodeApprove reads spender and amount back from approve calldata, so the approval fields the
// API reports are exactly what the wallet will sign.
func decodeApprove(data []byte) (spender common.Address, amt uint256.Int, ok bool) {
	if len(data) != 4+32+32 || !bytes.Equal(data[:4], approveSelector[:]) {
		return spender, amt, false
	}
	word := data[4:36]
	for _, b := range word[:12] {
		if b != 0 {
			return spender, amt, false
		}
	}
	spender = common.BytesToAddress(word[12:])
	amt.SetBytes32(data[36:68])
	return spender, amt, true
}
