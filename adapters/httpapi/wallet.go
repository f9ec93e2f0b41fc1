package httpapi

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/wallet"
)

// walletRoutes are the custodial wallet's endpoints (SPEC 4.5), routed when the server has a
// Wallet service.
func (s *Server) walletRoutes() []group {
	if s.cfg.Wallet == nil {
		return nil
	}
	return []group{{prefix: "/wallet", routes: []route{
		{method: http.MethodPost, path: "/sign-and-submit", access: SessionOrKey, class: auth.ClassSigning, handle: s.signAndSubmit, notFound: "wallet not found",
			precheck: s.signingPolicy, reclass: simulationClass},
		{method: http.MethodPost, path: "/export-key", access: Session, class: auth.ClassKeyExport, handle: s.exportKey, notFound: "wallet not found"},
		{method: http.MethodGet, path: "/transactions", access: SessionOrKey, class: auth.ClassDefault, handle: s.listWalletTxs, notFound: "wallet not found"},
	}}}
}

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 200

// signBody is the unsigned transaction as build-tx returns it: to, data, value and gas are
// strings, chainId a number. from, when given, must be the caller's wallet.
type signBody struct {
	To      *string `json:"to" openapi:"required"`
	Data    *string `json:"data"`
	Value   *string `json:"value"`
	ChainID *uint64 `json:"chainId" openapi:"required"`
	Gas     *string `json:"gas"`
	From    *string `json:"from"`
	// SimulateOnly answers the simulation and signs nothing.
	SimulateOnly *bool `json:"simulateOnly"`
}

// parse checks every field and reports every problem at once.
func (b *signBody) parse(self common.Address) (wallet.Tx, error) {
	var tx wallet.Tx
	var problems curvekit.Problems
	switch a, ok := parseAddress(deref(b.To)); {
	case b.To == nil:
		problems = append(problems, "to is required")
	case !ok:
		problems = append(problems, "to must be an address: 0x followed by 40 hex digits")
	default:
		tx.To = a
	}
	if b.Data != nil {
		d, err := hexutil.Decode(*b.Data)
		if err != nil && *b.Data != "0x" {
			problems = append(problems, "data must be 0x-prefixed hex bytes")
		}
		tx.Data = d
	}
	if b.Value != nil {
		if v, err := uint256.FromDecimal(*b.Value); err != nil || strings.HasPrefix(*b.Value, "+") {
			problems = append(problems, "value must be a decimal string of wei")
		} else {
			tx.Value = *v
		}
	}
	if b.ChainID == nil {
		problems = append(problems, "chainId is required")
	} else {
		tx.ChainID = *b.ChainID
	}
	if b.Gas != nil {
		g, ok := parseDigits(*b.Gas)
		if !ok {
			problems = append(problems, "gas must be a decimal string of gas units")
		}
		tx.Gas = uint64(g)
	}
	if b.From != nil {
		if a, ok := parseAddress(*b.From); !ok || a != self {
			problems = append(problems, "from must be your wallet "+self.Hex()+" or absent")
		}
	}
	if len(problems) > 0 {
		return tx, problems
	}
	return tx, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// simulationJSON is a transaction run against the pending state, signed by nobody.
type simulationJSON struct {
	// Simulated is always true: nothing was signed or sent.
	Simulated bool `json:"simulated"`
	// Success is always true: a transaction that reverts is refused (SIMULATION_REVERTED).
	Success bool `json:"success"`
	// Gas is the gas the call used.
	Gas string `json:"gas"`
	// BalanceChanges are the wallet's, read from the call's logs; the gas fee is not among them.
	BalanceChanges []balanceChangeJSON `json:"balanceChanges"`
	// Complete is false where the node could not trace ETH transfers: ETH then leaves with
	// value, and what arrives in ETH is not shown.
	Complete bool `json:"complete"`
}

// balanceChangeJSON is one balance of the wallet a transaction changes, in base units (wei for
// ETH), negative for what leaves.
type balanceChangeJSON struct {
	// Asset is ETH or the token's address.
	Asset string `json:"asset"`
	Delta string `json:"delta"`
}

func balanceChangesOf(sim *wallet.SimulationResult) []balanceChangeJSON {
	out := []balanceChangeJSON{}
	if sim == nil {
		return out
	}
	for _, c := range sim.BalanceChanges {
		asset := "ETH"
		if c.Asset != (common.Address{}) {
			asset = c.Asset.Hex()
		}
		out = append(out, balanceChangeJSON{Asset: asset, Delta: c.Delta.String()})
	}
	return out
}

type submissionJSON struct {
	Hash                 string `json:"hash"`
	From                 string `json:"from"`
	To                   string `json:"to"`
	Nonce                uint64 `json:"nonce"`
	ChainID              uint64 `json:"chainId"`
	Gas                  string `json:"gas"`
	Value                string `json:"value"`
	MaxFeePerGas         string `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas"`
	SubmittedAt          int64  `json:"submittedAt"`
	Replayed             bool   `json:"replayed"`
}

// signingPolicy refuses, before the account's signing budget is spent, a transaction that a key
// with allowedRecipients may not sign (wallet.CheckRecipients; the wallet service checks again
// before unsealing). The body is read here and put back for the handler; a body that does not
// parse is left to the handler to report.
func (s *Server) signingPolicy(r *http.Request, p *auth.Principal) error {
	if p == nil || len(p.AllowedRecipients) == 0 {
		return nil
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, defaultMaxBody))
	if err != nil {
		r.Body = io.NopCloser(failedReader{err}) // the handler reports the same failure
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var body signBody
	if decodeStrict(raw, &body) != nil {
		return nil
	}
	tx, err := body.parse(p.Wallet)
	if err != nil {
		return nil
	}
	return wallet.CheckRecipients(p.Wallet, p.AllowedRecipients, &tx)
}

// simulationClass counts a sign-and-submit that only simulates in the default class: it signs
// nothing, so it spends none of the account's signing budget. The body is read as the handler
// reads it (strictly: no repeated or case-variant key), so a request counted here can only
// simulate; one that does not decode keeps the signing class.
func simulationClass(r *http.Request, class auth.Class) auth.Class {
	if r.ContentLength == 0 || r.ContentLength > defaultMaxBody {
		return class
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, defaultMaxBody))
	if err != nil {
		r.Body = io.NopCloser(failedReader{err})
		return class
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var body signBody
	if decodeStrict(raw, &body) != nil || body.SimulateOnly == nil || !*body.SimulateOnly {
		return class
	}
	return auth.ClassDefault
}

// failedReader gives back the error a body was read with.
type failedReader struct{ err error }

func (f failedReader) Read([]byte) (int, error) { return 0, f.err }

// POST /wallet/sign-and-submit: signs with the caller's custodial wallet and broadcasts. The
// answer comes after the broadcast, with the hash; the transaction may still be pending.
func (s *Server) signAndSubmit(w http.ResponseWriter, req bunrouter.Request) error {
	p := principalOf(req)
	raw, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	var body signBody
	if err := decodeStrict(raw, &body); err != nil {
		return err
	}
	tx, err := body.parse(p.Wallet)
	if err != nil {
		return err
	}
	key := req.Header.Get("Idempotency-Key")
	if len(key) > maxIdempotencyKey {
		return invalid("Idempotency-Key must be at most %d bytes", maxIdempotencyKey)
	}
	sum := sha256.Sum256(raw)
	simulate := body.SimulateOnly != nil && *body.SimulateOnly
	sub, err := s.cfg.Wallet.SignAndSubmit(req.Context(), wallet.SignParams{
		AccountID: p.AccountID, ReadOnly: p.ReadOnly, AllowedRecipients: p.AllowedRecipients, KeyID: p.KeyID,
		Tx: tx, IdempotencyKey: key, RequestHash: sum[:], SimulateOnly: simulate,
	})
	if err != nil {
		return err
	}
	if simulate {
		return writeJSON(w, http.StatusOK, simulationJSON{Simulated: true, Success: true, Gas: strconv.FormatUint(sub.Gas, 10),
			BalanceChanges: balanceChangesOf(sub.Simulation), Complete: sub.Simulation.Traced})
	}
	return writeJSON(w, http.StatusOK, submissionJSON{
		Hash: sub.Hash.Hex(), From: sub.From.Hex(), To: sub.To.Hex(), Nonce: sub.Nonce, ChainID: sub.ChainID,
		Gas: strconv.FormatUint(sub.Gas, 10), Value: sub.Value.Dec(), MaxFeePerGas: sub.MaxFeePerGas.Dec(),
		MaxPriorityFeePerGas: sub.MaxPriorityFeePerGas.Dec(), SubmittedAt: sub.SubmittedAt.Unix(), Replayed: sub.Replayed,
	})
}

// POST /wallet/export-key: the custodial wallet's private key, to a session whose sign-in is
// recent (the service refuses an older one with a message to sign in again).
func (s *Server) exportKey(w http.ResponseWriter, req bunrouter.Request) error {
	p := principalOf(req)
	// No body, or an empty object (what many clients send for an empty POST); anything else is
	// refused, as every body is decoded strictly.
	raw, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := decodeStrict(raw, &struct{}{}); err != nil {
			return err
		}
	}
	key, err := s.cfg.Wallet.Export(req.Context(), p.AccountID, p.SignedInAt)
	if err != nil {
		return err
	}
	s.security(req.Request, slog.LevelWarn, "private key exported", p, slog.String("wallet", p.Wallet.Hex()))
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, exportedKeyJSON{Wallet: p.Wallet.Hex(), PrivateKey: key,
		Warning: fmt.Sprintf("anyone holding this key controls %s; store it offline", p.Wallet.Hex())})
}

type exportedKeyJSON struct {
	Wallet     string `json:"wallet"`
	PrivateKey string `json:"privateKey"`
	Warning    string `json:"warning"`
}

// walletTxJSON is a transaction the custodial wallet sent. Amounts are wei decimal strings.
type walletTxJSON struct {
	ID string `json:"id"`
	// Hash is the latest send, or the one mined; Hashes every hash it was sent under, oldest
	// first (a replacement keeps the nonce and adds a hash).
	Hash                 string   `json:"hash"`
	Hashes               []string `json:"hashes"`
	State                string   `json:"state"`
	From                 string   `json:"from"`
	To                   string   `json:"to"`
	Nonce                uint64   `json:"nonce"`
	ChainID              uint64   `json:"chainId"`
	Value                string   `json:"value"`
	Gas                  string   `json:"gas"`
	MaxFeePerGas         string   `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string   `json:"maxPriorityFeePerGas"`
	SubmittedAt          int64    `json:"submittedAt"`
	// BlockNumber, GasUsed, EffectiveGasPrice and FeePaid are null until mined (or failed).
	BlockNumber       *uint64 `json:"blockNumber"`
	GasUsed           *string `json:"gasUsed"`
	EffectiveGasPrice *string `json:"effectiveGasPrice"`
	FeePaid           *string `json:"feePaid"`
}

type walletTxListJSON struct {
	Transactions []walletTxJSON `json:"transactions"`
	NextCursor   *string        `json:"nextCursor"`
}

func walletTxOf(t *wallet.Transaction) walletTxJSON {
	out := walletTxJSON{
		ID: t.ID, Hash: t.Hash.Hex(), Hashes: make([]string, len(t.Hashes)), State: string(t.State), From: t.From.Hex(), To: t.To.Hex(),
		Nonce: t.Nonce, ChainID: t.ChainID, Value: t.Value.Dec(), Gas: strconv.FormatUint(t.Gas, 10),
		MaxFeePerGas: t.Fees.MaxFeePerGas.String(), MaxPriorityFeePerGas: t.Fees.MaxPriorityFeePerGas.String(), SubmittedAt: t.SentAt.Unix(),
	}
	for i, h := range t.Hashes {
		out.Hashes[i] = h.Hex()
	}
	if t.State == wallet.TxMined || t.State == wallet.TxFailed {
		block, used, price, fee := t.Block, strconv.FormatUint(t.GasUsed, 10), t.GasPrice.Dec(), t.FeePaid()
		feeDec := fee.Dec()
		out.BlockNumber, out.GasUsed, out.EffectiveGasPrice, out.FeePaid = &block, &used, &price, &feeDec
	}
	return out
}

// GET /wallet/transactions: what the custodial wallet sent, newest first, a page at a time.
func (s *Server) listWalletTxs(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	cursor := q.str("cursor", "")
	limit := int(q.intIn("limit", 50, 1, wallet.MaxTransactions))
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.cfg.Wallet.Transactions(req.Context(), principalOf(req).AccountID, cursor, limit)
	if err != nil {
		return err
	}
	out := walletTxListJSON{Transactions: make([]walletTxJSON, len(page.Transactions)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Transactions {
		out.Transactions[i] = walletTxOf(&page.Transactions[i])
	}
	return writeJSON(w, http.StatusOK, out)
}
