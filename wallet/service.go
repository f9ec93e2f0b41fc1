package wallet

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/push"
)

// Limits of a submitted transaction.
const (
	// MaxGas is the largest gas limit a transaction may carry: Osaka refuses more (EIP-7825).
	MaxGas = 16_777_216
	// MaxData bounds the call data; nodes refuse transactions above 128 KiB in all.
	MaxData = 120 * 1024
	// MaxIdempotencyKey bounds an idempotency key's length.
	MaxIdempotencyKey = 255
	// ExportWindow is how recent a sign-in must be to export a key.
	ExportWindow = 15 * time.Minute
)

// Config configures a Service.
type Config struct {
	Store       Store
	Broadcaster Broadcaster
	Keys        KeyWrapper
	// Signer signs transactions; default ECDSASigner.
	Signer Signer
	// Factory is the launch factory: a call of its launch counts against the signing wallet's
	// daily launch limit, which Launches tells. Without Launches nothing is counted.
	Factory  common.Address
	Launches Launches
	// Guard is the account's layer of the signing policy (pause, caps, price impact, the
	// account's recipients), applied after the key's and before the key is unsealed; without it
	// only the key's restrictions apply. It needs Markets, and the Router and WETH addresses
	// (with Factory, the trading venues).
	Guard   Guard
	Markets Markets
	Router  common.Address
	WETH    common.Address
	// IdempotencyWait is how long a request waits for an earlier one with the same idempotency
	// key to finish before it answers curvekit.ErrConflict; default 10s.
	IdempotencyWait time.Duration
	// IdempotencyTTL is how long an idempotency key keeps its request: a key reused later is a
	// new request; default 24h (as Stripe keeps them).
	IdempotencyTTL time.Duration
	// MaxFeePerGas is the ceiling of the fee cap, in wei per gas: nothing is sent, or
	// replaced, above it (ErrFeeCeiling). Nil: no ceiling.
	MaxFeePerGas *big.Int
	// ReplaceAfter is how many blocks a sent transaction may stay unmined before the tracker
	// replaces it with higher fees; default 3.
	ReplaceAfter uint64
	// TrackEvery is how often Track looks at the transactions in flight; default 2s.
	TrackEvery time.Duration
	// ClaimFor is how long a replica holds a transaction it replaces before another may;
	// default 1m.
	ClaimFor time.Duration
	// Replica names this process in the claims it makes; default random.
	Replica string
	// Notifier hears of every transaction sent and settled; nil: nobody.
	Notifier Notifier
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives failures the caller does not see; default slog.Default(). Keys never
	// reach it.
	Logger *slog.Logger
}

func (c *Config) withDefaults() {
	if c.Signer == nil {
		c.Signer = ECDSASigner{}
	}
	if c.IdempotencyWait == 0 {
		c.IdempotencyWait = 10 * time.Second
	}
	if c.IdempotencyTTL == 0 {
		c.IdempotencyTTL = 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ReplaceAfter == 0 {
		c.ReplaceAfter = 3
	}
	if c.TrackEvery == 0 {
		c.TrackEvery = 2 * time.Second
	}
	if c.ClaimFor == 0 {
		c.ClaimFor = time.Minute
	}
	if c.Replica == "" {
		c.Replica = randomID()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *Config) validate() error {
	if c.Store == nil || c.Broadcaster == nil || c.Keys == nil {
		return errors.New("wallet: a Store, a Broadcaster and a KeyWrapper are required")
	}
	if c.Guard != nil && c.Markets == nil {
		return errors.New("wallet: the account's guard needs Markets to price trades")
	}
	if c.Launches != nil && c.Factory == (common.Address{}) {
		return errors.New("wallet: counting launches needs the Factory's address")
	}
	if c.MaxFeePerGas != nil && c.MaxFeePerGas.Sign() <= 0 {
		return fmt.Errorf("wallet: MaxFeePerGas %s must be positive", c.MaxFeePerGas)
	}
	if c.TrackEvery < 0 || c.ClaimFor < 0 {
		return fmt.Errorf("wallet: TrackEvery %s and ClaimFor %s must not be negative", c.TrackEvery, c.ClaimFor)
	}
	if c.IdempotencyWait < 0 || c.IdempotencyTTL < 0 {
		return fmt.Errorf("wallet: IdempotencyWait %s and IdempotencyTTL %s must not be negative", c.IdempotencyWait, c.IdempotencyTTL)
	}
	return nil
}

// Service runs the custodial wallets. It is safe for concurrent use.
type Service struct {
	cfg     Config
	chainID atomic.Uint64 // read from the Broadcaster once; 0 until then
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg}, nil
}

// Create returns the account's wallet address, creating the wallet on first call. Concurrent
// calls for one account agree on one wallet.
func (s *Service) Create(ctx context.Context, accountID string) (common.Address, error) {
	if err := checkAccount(accountID); err != nil {
		return common.Address{}, err
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if err == nil {
		return w.Address, nil
	}
	if !errors.Is(err, curvekit.ErrNotFound) {
		return common.Address{}, err
	}
	w, err = s.newWallet(ctx, accountID)
	if err != nil {
		return common.Address{}, err
	}
	stored, _, err := s.cfg.Store.CreateWallet(ctx, w)
	if err != nil {
		return common.Address{}, err
	}
	return stored.Address, nil
}

// newWallet makes a key and seals it for a wallet of accountID.
func (s *Service) newWallet(ctx context.Context, accountID string) (Wallet, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return Wallet{}, fmt.Errorf("wallet: generate key: %w", err)
	}
	w := Wallet{ID: randomID(), AccountID: accountID, Address: crypto.PubkeyToAddress(key.PublicKey), CreatedAt: s.cfg.Now().UTC()}
	raw := crypto.FromECDSA(key)
	defer clear(raw)
	if err := s.sealKey(ctx, &w, raw); err != nil {
		return Wallet{}, err
	}
	return w, nil
}

// sealKey seals raw into w under a new data key wrapped by the current master key.
func (s *Service) sealKey(ctx context.Context, w *Wallet, raw []byte) error {
	dataKey := make([]byte, dataKeySize)
	defer clear(dataKey)
	if _, err := rand.Read(dataKey); err != nil {
		return err
	}
	wrapped, err := s.cfg.Keys.Wrap(ctx, dataKey, walletAD(w.ID, w.Address))
	if err != nil {
		return fmt.Errorf("wallet: wrap data key: %w", err)
	}
	sealed, err := seal(dataKey, raw, privateKeyAD(w.ID, w.Address, wrapped.Version))
	if err != nil {
		return err
	}
	w.KeyVersion, w.DataKey, w.PrivateKey = wrapped.Version, wrapped.Ciphertext, sealed
	return nil
}

// unseal opens w's private key; the caller must not keep it beyond its operation.
func (s *Service) unseal(ctx context.Context, w *Wallet) (*ecdsa.PrivateKey, error) {
	dataKey, err := s.cfg.Keys.Unwrap(ctx, Wrapped{Version: w.KeyVersion, Ciphertext: w.DataKey}, walletAD(w.ID, w.Address))
	if err != nil {
		return nil, fmt.Errorf("wallet %s: %w", w.ID, err)
	}
	defer clear(dataKey)
	raw, err := open(dataKey, w.PrivateKey, privateKeyAD(w.ID, w.Address, w.KeyVersion))
	if err != nil {
		return nil, fmt.Errorf("wallet %s: %w", w.ID, err)
	}
	defer clear(raw)
	key, err := crypto.ToECDSA(raw)
	if err != nil {
		return nil, fmt.Errorf("wallet %s: %w: not a private key", w.ID, ErrSealBroken)
	}
	if crypto.PubkeyToAddress(key.PublicKey) != w.Address {
		return nil, fmt.Errorf("wallet %s: %w: the key is not the wallet's", w.ID, ErrSealBroken)
	}
	return key, nil
}

// Rewrap seals the account wallet's key again under a new data key wrapped by the current master
// key, when it is under an older one, and reports whether it did. Run it for every wallet after
// adding a master key version; once none is left under the old version, that version can be
// dropped from the keyring.
func (s *Service) Rewrap(ctx context.Context, accountID string) (bool, error) {
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if err != nil {
		return false, err
	}
	key, err := s.unseal(ctx, &w)
	if err != nil {
		return false, err
	}
	raw := crypto.FromECDSA(key)
	defer clear(raw)
	next := w
	if err := s.sealKey(ctx, &next, raw); err != nil {
		return false, err
	}
	if next.KeyVersion == w.KeyVersion {
		return false, nil
	}
	err = s.cfg.Store.RewrapWallet(ctx, RewrapParams{WalletID: w.ID, FromVersion: w.KeyVersion, KeyVersion: next.KeyVersion, DataKey: next.DataKey, PrivateKey: next.PrivateKey})
	if errors.Is(err, curvekit.ErrConflict) {
		return false, nil // rewrapped meanwhile by another process
	}
	return err == nil, err
}

// Address returns the account's wallet address, or curvekit.ErrNotFound.
func (s *Service) Address(ctx context.Context, accountID string) (common.Address, error) {
	if err := checkAccount(accountID); err != nil {
		return common.Address{}, err
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if err != nil {
		return common.Address{}, err
	}
	return w.Address, nil
}

func checkAccount(accountID string) error {
	if accountID == "" || len(accountID) > 128 {
		return fmt.Errorf("%w: account id must be 1 to 128 bytes", curvekit.ErrInvalid)
	}
	return nil
}

// Tx is an unsigned transaction as build-tx returns it.
type Tx struct {
	To      common.Address
	Data    []byte
	Value   uint256.Int
	ChainID uint64
	// Gas is the gas limit; 0 estimates it.
	Gas uint64
}

// SignParams is one sign-and-submit request. The caller's restrictions come from its principal,
// never from the request body.
type SignParams struct {
	AccountID string
	// ReadOnly is set for a read-only API key: it may not sign at all.
	ReadOnly bool
	// KeyID is the API key that asks; empty for a session. The activity log names it.
	KeyID string
	// Actor, when set, names who asks in the activity log when it is neither a key nor a
	// session (the server firing an order).
	Actor string
	// AllowedRecipients, when not empty, lists the only addresses besides the wallet itself
	// that may receive anything from the transaction: Tx.To and every beneficiary ReadCall
	// finds in its data. Data ReadCall cannot read is refused.
	AllowedRecipients []common.Address
	Tx                Tx
	// IdempotencyKey, when set, makes a retry of the same request return the first answer.
	IdempotencyKey string
	// SimulateOnly stops after the checks and the simulation: nothing is signed or sent, and
	// the answer is the Simulation alone.
	SimulateOnly bool
	// RequestHash identifies the request body for the idempotency check; empty, the service
	// hashes Tx.
	RequestHash []byte
}

// Submission is a broadcast transaction.
type Submission struct {
	Hash                 common.Hash
	From                 common.Address
	To                   common.Address
	Nonce                uint64
	ChainID              uint64
	Gas                  uint64
	Value                uint256.Int
	MaxFeePerGas         uint256.Int
	MaxPriorityFeePerGas uint256.Int
	SubmittedAt          time.Time
	// Replayed is set when the answer comes from an earlier request with the same idempotency
	// key: nothing was sent this time.
	Replayed bool
	// Simulation is what the transaction did against the pending state before it was signed
	// (nil in a replayed answer); for SimulateOnly it is the whole answer.
	Simulation *SimulationResult
}

// SimulationResult is a transaction's simulation as the caller sees it.
type SimulationResult struct {
	Gas uint64
	// BalanceChanges are the wallet's, from the call's logs (see Simulation.BalanceChanges).
	BalanceChanges []BalanceChange
	// Traced reports that the node traced the ETH transfers: every change is there. Without,
	// ETH leaves with the value and what arrives in ETH is unknown.
	Traced bool
}

// SignAndSubmit signs p.Tx with the account's wallet and broadcasts it. A read-only caller, a
// beneficiary outside a non-empty allowlist, or, under an allowlist, call data the policy cannot
// read (ReadCall) is curvekit.ErrForbidden before the wallet's key is unsealed; a chain id other than the chain's, gas above MaxGas or oversized data is
// curvekit.ErrInvalid; the same idempotency key with another request is curvekit.ErrConflict. A
// launch at the configured factory beyond the wallet's daily launch limit, counting the launches
// indexed and those signed and still in flight, is ErrLaunchLimit (curvekit.ErrLimited), and
// nothing is signed.
func (s *Service) SignAndSubmit(ctx context.Context, p SignParams) (Submission, error) {
	sub, err := s.signAndSubmit(ctx, &p)
	if code := curvekit.CodeOf(err); code != "" && code != curvekit.CodeValidationFailed && s.cfg.Guard != nil && !p.SimulateOnly {
		s.recordRefusal(ctx, &p, code, err)
	}
	return sub, err
}

// recordRefusal appends a refusal to the account's activity log; a failure to is logged only.
func (s *Service) recordRefusal(ctx context.Context, p *SignParams, code curvekit.Code, err error) {
	actor := account.Actor{KeyID: p.KeyID, Name: p.Actor}
	if rerr := s.cfg.Guard.RecordRefusal(context.WithoutCancel(ctx), p.AccountID, actor, code, curvekit.Reason(err)); rerr != nil {
		s.cfg.Logger.Error("wallet: record a refusal", "account", p.AccountID, "code", code, "err", rerr)
	}
}

func (s *Service) signAndSubmit(ctx context.Context, p *SignParams) (Submission, error) {
	if p.ReadOnly {
		return Submission{}, curvekit.WithCode(curvekit.CodeReadOnlyKey, fmt.Errorf("%w: this API key is read-only and cannot sign", curvekit.ErrForbidden))
	}
	if err := checkAccount(p.AccountID); err != nil {
		return Submission{}, err
	}
	if err := s.checkTx(ctx, &p.Tx); err != nil {
		return Submission{}, err
	}
	if len(p.IdempotencyKey) > MaxIdempotencyKey {
		return Submission{}, fmt.Errorf("%w: idempotency key longer than %d bytes", curvekit.ErrInvalid, MaxIdempotencyKey)
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, p.AccountID)
	if errors.Is(err, curvekit.ErrNotFound) {
		return Submission{}, fmt.Errorf("%w: this account has no custodial wallet", curvekit.ErrNotFound)
	}
	if err != nil {
		return Submission{}, err
	}
	if len(p.AllowedRecipients) > 0 {
		if err := CheckRecipients(w.Address, p.AllowedRecipients, &p.Tx); err != nil {
			return Submission{}, err
		}
	}
	if p.IdempotencyKey == "" || p.SimulateOnly {
		return s.send(ctx, &w, p)
	}
	if len(p.RequestHash) == 0 {
		p.RequestHash = hashTx(&p.Tx)
	}
	now := s.cfg.Now().UTC()
	rec, claimed, err := s.cfg.Store.ClaimIdempotency(ctx, ClaimParams{
		AccountID: p.AccountID, Key: p.IdempotencyKey, RequestHash: p.RequestHash,
		CreatedAt: now, ExpiredBefore: now.Add(-s.cfg.IdempotencyTTL),
	})
	if err != nil {
		return Submission{}, err
	}
	if !claimed {
		return s.replay(ctx, rec, p.RequestHash)
	}
	sub, err := s.send(ctx, &w, p)
	// The record outlives a cancelled request: it must be completed or released either way.
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if rerr := s.cfg.Store.ReleaseIdempotency(bg, p.AccountID, p.IdempotencyKey); rerr != nil {
			s.cfg.Logger.Error("wallet: release idempotency key", "account", p.AccountID, "err", rerr)
		}
		return Submission{}, err
	}
	body, err := encodeSubmission(&sub)
	if err == nil {
		err = s.cfg.Store.CompleteIdempotency(bg, CompleteParams{AccountID: p.AccountID, Key: p.IdempotencyKey, Response: body})
	}
	if err != nil {
		// The transaction is out: answer it. The key stays pending, so a retry is refused
		// rather than sent twice.
		s.cfg.Logger.Error("wallet: record idempotent response", "account", p.AccountID, "tx", sub.Hash, "err", err)
	}
	return sub, nil
}

// Sent answers the transaction that an earlier SignAndSubmit of the account with idempotency key
// key sent: what a retry with that key would be answered, found without a request to compare
// (false when none completed: none was made, it failed, it is still in flight, or its record
// has expired).
func (s *Service) Sent(ctx context.Context, accountID, key string) (Submission, bool, error) {
	rec, err := s.cfg.Store.Idempotency(ctx, accountID, key)
	if errors.Is(err, curvekit.ErrNotFound) {
		return Submission{}, false, nil
	}
	if err != nil || !rec.Done() {
		return Submission{}, false, err
	}
	sub, err := decodeSubmission(rec.Response)
	if err != nil {
		return Submission{}, false, err
	}
	sub.Replayed = true
	return sub, true, nil
}

// replay answers a request whose idempotency key was claimed before: the first answer once it
// is there, waiting up to IdempotencyWait for a request still in flight.
func (s *Service) replay(ctx context.Context, rec Idempotency, hash []byte) (Submission, error) {
	if string(rec.RequestHash) != string(hash) {
		return Submission{}, fmt.Errorf("%w: this Idempotency-Key was used with another request", curvekit.ErrConflict)
	}
	deadline := time.NewTimer(s.cfg.IdempotencyWait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !rec.Done() {
		select {
		case <-ctx.Done():
			return Submission{}, ctx.Err()
		case <-deadline.C:
			return Submission{}, fmt.Errorf("%w: a request with this Idempotency-Key is still in progress", curvekit.ErrConflict)
		case <-tick.C:
		}
		var err error
		rec, err = s.cfg.Store.Idempotency(ctx, rec.AccountID, rec.Key)
		if errors.Is(err, curvekit.ErrNotFound) {
			// The first request failed and let go of the key: this one may not send in its
			// place without claiming it, and the client retries.
			return Submission{}, fmt.Errorf("%w: the first request with this Idempotency-Key failed; retry", curvekit.ErrConflict)
		}
		if err != nil {
			return Submission{}, err
		}
	}
	sub, err := decodeSubmission(rec.Response)
	if err != nil {
		return Submission{}, err
	}
	sub.Replayed = true
	return sub, nil
}

// checkTx validates the transaction against the chain and the limits; it fills in nothing.
func (s *Service) checkTx(ctx context.Context, tx *Tx) error {
	var problems curvekit.Problems
	if tx.To == (common.Address{}) {
		problems = append(problems, "to: a recipient address is required")
	}
	if tx.Gas > MaxGas {
		problems = append(problems, fmt.Sprintf("gas: at most %d", MaxGas))
	}
	if len(tx.Data) > MaxData {
		problems = append(problems, fmt.Sprintf("data: at most %d bytes", MaxData))
	}
	chain, err := s.chain(ctx)
	if err != nil {
		return err
	}
	if tx.ChainID != chain {
		problems = append(problems, fmt.Sprintf("chainId: this wallet signs for chain %d, not %d", chain, tx.ChainID))
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// chain returns the chain id, asking the Broadcaster the first time.
func (s *Service) chain(ctx context.Context) (uint64, error) {
	if id := s.chainID.Load(); id != 0 {
		return id, nil
	}
	id, err := s.cfg.Broadcaster.ChainID(ctx)
	if err != nil {
		return 0, fmt.Errorf("wallet: chain id: %w", err)
	}
	s.chainID.Store(id)
	return id, nil
}

// nonceAttempts bounds how often a send is retried with a fresh nonce when the chain says the
// one it got is used (a transaction sent from the wallet outside this service).
const nonceAttempts = 3

// send applies the account's guard and simulates the transaction, then signs and broadcasts it.
func (s *Service) send(ctx context.Context, w *Wallet, p *SignParams) (Submission, error) {
	spend, err := s.guard(ctx, w.Address, p)
	if err != nil {
		return Submission{}, err
	}
	sim, err := s.cfg.Broadcaster.Simulate(ctx, w.Address, &p.Tx)
	if err != nil {
		return Submission{}, fmt.Errorf("wallet: simulate: %w", err)
	}
	if sim.Reverted {
		return Submission{}, refuse(curvekit.CodeSimulationReverted, curvekit.ErrInvalid,
			"the transaction reverts against the pending state: %s", sim.RevertReason())
	}
	res := &SimulationResult{Gas: sim.GasUsed, BalanceChanges: sim.BalanceChanges(w.Address, p.Tx.Value.ToBig()), Traced: sim.Traced}
	if p.SimulateOnly {
		return Submission{From: w.Address, To: p.Tx.To, ChainID: p.Tx.ChainID, Value: p.Tx.Value, Gas: sim.GasUsed, Simulation: res}, nil
	}
	sub, err := s.submit(ctx, w, &p.Tx, spend)
	if err == nil {
		sub.Simulation = res
	}
	return sub, err
}

// submit unseals the wallet's key, signs and broadcasts; spend, when set, is checked against the
// daily caps and recorded with the nonce.
func (s *Service) submit(ctx context.Context, w *Wallet, tx *Tx, spend *SpendQuota) (Submission, error) {
	quota, err := s.launchQuota(ctx, w, tx)
	if err != nil {
		return Submission{}, err
	}
	gas := tx.Gas
	if gas == 0 {
		var err error
		if gas, err = s.cfg.Broadcaster.EstimateGas(ctx, w.Address, tx); err != nil {
			return Submission{}, err
		}
		if gas > MaxGas {
			return Submission{}, fmt.Errorf("%w: the transaction needs %d gas, more than %d", curvekit.ErrInvalid, gas, MaxGas)
		}
	}
	fees, err := s.price(ctx)
	if err != nil {
		return Submission{}, err
	}
	head, err := s.cfg.Broadcaster.BlockNumber(ctx)
	if err != nil {
		return Submission{}, fmt.Errorf("wallet: head: %w", err)
	}
	key, err := s.unseal(ctx, w)
	if err != nil {
		return Submission{}, err
	}
	to := tx.To
	for attempt := 1; ; attempt++ {
		pending, err := s.cfg.Broadcaster.PendingNonce(ctx, w.Address)
		if err != nil {
			return Submission{}, fmt.Errorf("wallet: pending nonce: %w", err)
		}
		id := randomID()
		if spend != nil {
			spend.TxID = id
		}
		nonce, err := s.cfg.Store.ReserveNonce(ctx, ReserveNonceParams{WalletID: w.ID, Pending: pending, Launch: quota, Spend: spend, At: s.cfg.Now().UTC()})
		var over *LaunchLimitError
		if errors.As(err, &over) {
			return Submission{}, launchRefused(w.Address, quota, over.Used)
		}
		var overSpent *SpendLimitError
		if errors.As(err, &overSpent) {
			return Submission{}, spend.refused(overSpent)
		}
		if err != nil {
			return Submission{}, err
		}
		unsigned := types.NewTx(&types.DynamicFeeTx{
			ChainID:   new(big.Int).SetUint64(tx.ChainID),
			Nonce:     nonce,
			GasTipCap: fees.MaxPriorityFeePerGas,
			GasFeeCap: fees.MaxFeePerGas,
			Gas:       gas,
			To:        &to,
			Value:     tx.Value.ToBig(),
			Data:      tx.Data,
		})
		signed, err := s.cfg.Signer.SignTx(ctx, unsigned, key)
		if err == nil && quota != nil {
			// Known before it is sent, so the launch counts once however soon it is indexed.
			err = s.cfg.Store.RecordLaunchTx(ctx, LaunchTxParams{WalletID: w.ID, Nonce: nonce, Hash: signed.Hash()})
		}
		var record *Transaction
		if err == nil {
			// Recorded before it is sent, so the tracker follows it even if this process
			// stops right after the broadcast; held by this send until the node answers, so
			// that no tracker replaces what may not have been sent yet.
			now := s.cfg.Now().UTC()
			record = &Transaction{
				ID: id, WalletID: w.ID, From: w.Address, Nonce: nonce, ChainID: tx.ChainID, To: to, Value: tx.Value,
				Data: tx.Data, Gas: gas, Fees: fees, Hash: signed.Hash(), Hashes: []common.Hash{signed.Hash()}, State: TxPending,
				SentAt: now, SentBlock: head, ClaimedBy: "send-" + randomID(), ClaimedUntil: now.Add(s.cfg.ClaimFor),
			}
			if err = s.cfg.Store.RecordTransaction(ctx, *record); err != nil {
				record = nil
			}
		}
		if err == nil {
			err = s.cfg.Broadcaster.Send(ctx, signed)
		}
		if err == nil {
			s.release(ctx, record, true, s.events(record)...)
			sub := Submission{
				Hash: signed.Hash(), From: w.Address, To: to, Nonce: nonce, ChainID: tx.ChainID, Gas: gas,
				Value: tx.Value, SubmittedAt: s.cfg.Now().UTC(),
			}
			sub.MaxFeePerGas.SetFromBig(fees.MaxFeePerGas)
			sub.MaxPriorityFeePerGas.SetFromBig(fees.MaxPriorityFeePerGas)
			return sub, nil
		}
		if record != nil {
			// A node's refusal is definite: the record goes. Any other failure (a timeout, a
			// lost answer) may have reached the node: the tracker follows the record and
			// settles it from a receipt, or as dropped once another uses the nonce.
			refused := errors.Is(err, curvekit.ErrConflict) || errors.Is(err, curvekit.ErrInvalid)
			if !s.release(ctx, record, !refused) && refused {
				// The hold lapsed and the tracker may have sent it again under this nonce:
				// sending it once more under another would pay twice.
				return Submission{}, fmt.Errorf("%w; the transaction is followed and may still be mined: see GET /wallet/transactions", err)
			}
		}
		s.giveBack(ctx, w, nonce)
		if !errors.Is(err, curvekit.ErrConflict) || attempt == nonceAttempts {
			return Submission{}, err
		}
	}
}

// release lets go of the hold a send keeps on its record from RecordTransaction on: sent, the
// tracker follows it from here; refused, the record goes. It reports false when the hold had
// lapsed and the record is the tracker's now.
func (s *Service) release(ctx context.Context, t *Transaction, sent bool, events ...push.Event) bool {
	err := s.cfg.Store.ReleaseTransaction(context.WithoutCancel(ctx), ReleaseTxParams{ID: t.ID, Owner: t.ClaimedBy, Sent: sent, At: s.cfg.Now().UTC(), Events: events})
	if err == nil {
		s.committed(events)
	}
	switch {
	case err == nil:
		return true
	case errors.Is(err, curvekit.ErrConflict), errors.Is(err, curvekit.ErrNotFound):
		if !sent {
			return false
		}
		return true // settled or taken over meanwhile: the tracker has it either way
	default:
		// The hold lapses by itself; the tracker takes the record over then.
		s.cfg.Logger.Error("wallet: release a sent transaction", "wallet", t.WalletID, "nonce", t.Nonce, "err", err)
		return sent
	}
}

// price asks the chain for fees and fits them under the ceiling.
func (s *Service) price(ctx context.Context) (Fees, error) {
	suggested, err := s.cfg.Broadcaster.SuggestFees(ctx)
	if err != nil {
		return Fees{}, fmt.Errorf("wallet: fees: %w", err)
	}
	return Cap(suggested, s.cfg.MaxFeePerGas)
}

// randomID is 16 random bytes in hex.
func randomID() string {
	var id [16]byte
	_, _ = rand.Read(id[:]) // never fails (crypto/rand)
	return hex.EncodeToString(id[:])
}

// launchQuota is the wallet's launch quota when tx calls the factory's launch, else nil. A quota
// the indexed launches alone have used up is refused here, before anything is estimated or
// unsealed; the Store's reservation is what holds under concurrency.
func (s *Service) launchQuota(ctx context.Context, w *Wallet, tx *Tx) (*LaunchQuota, error) {
	if s.cfg.Launches == nil || !isLaunch(s.cfg.Factory, tx) {
		return nil, nil
	}
	q, err := s.cfg.Launches.LaunchQuota(ctx, w.Address)
	if err != nil {
		return nil, fmt.Errorf("wallet: launch quota of %s: %w", w.Address.Hex(), err)
	}
	if len(q.Indexed) >= q.Limit {
		return nil, launchRefused(w.Address, &q, len(q.Indexed))
	}
	return &q, nil
}

// launchRefused is the client's answer to a launch over the quota q, with used launches counted.
func launchRefused(addr common.Address, q *LaunchQuota, used int) error {
	return fmt.Errorf("%w: %s has launched or signed %d of %d launches today (%s tier); the count resets at %s",
		ErrLaunchLimit, addr.Hex(), used, q.Limit, q.Tier, q.ResetsAt.Format(time.RFC3339))
}

// giveBack releases a nonce whose transaction the chain did not take. When the chain's pending
// nonce has passed it, something holds it (the transaction reached the node after all, or
// another sender used it) and releasing it would collide.
func (s *Service) giveBack(ctx context.Context, w *Wallet, nonce uint64) {
	ctx = context.WithoutCancel(ctx)
	pending, err := s.cfg.Broadcaster.PendingNonce(ctx, w.Address)
	if err == nil && pending > nonce {
		return
	}
	// Unknown pending nonce: release anyway. A reuse that collides is refused by the chain as a
	// used nonce, which ReserveNonce then skips past; a gap would stall every later send.
	if err := s.cfg.Store.ReleaseNonce(ctx, w.ID, nonce); err != nil {
		s.cfg.Logger.Error("wallet: release nonce", "wallet", w.ID, "nonce", nonce, "err", err)
	}
}

// Export returns the account wallet's private key as 0x-prefixed hex, when the session that asks
// signed in within ExportWindow (else curvekit.ErrForbidden). Every export is audited before the
// key is returned; the key never reaches a log.
func (s *Service) Export(ctx context.Context, accountID string, signedInAt time.Time) (string, error) {
	if err := checkAccount(accountID); err != nil {
		return "", err
	}
	now := s.cfg.Now()
	if signedInAt.IsZero() || now.Sub(signedInAt) > ExportWindow || signedInAt.After(now.Add(time.Minute)) {
		return "", fmt.Errorf("%w: exporting a key needs a sign-in within the last 15 minutes: sign in again", curvekit.ErrForbidden)
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if err != nil {
		return "", err
	}
	key, err := s.unseal(ctx, &w)
	if err != nil {
		return "", err
	}
	if err := s.cfg.Store.RecordExport(ctx, Export{AccountID: accountID, WalletID: w.ID, Address: w.Address, SignedInAt: signedInAt.UTC(), At: now.UTC()}); err != nil {
		return "", err
	}
	return hexutil.Encode(crypto.FromECDSA(key)), nil
}

// hashTx identifies a transaction request when the caller gives no request hash.
func hashTx(tx *Tx) []byte {
	h := sha256.New()
	h.Write([]byte("curvekit sign-and-submit v1\x00"))
	h.Write(tx.To.Bytes())
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], tx.ChainID)
	h.Write(b[:])
	binary.BigEndian.PutUint64(b[:], tx.Gas)
	h.Write(b[:])
	v := tx.Value.Bytes32()
	h.Write(v[:])
	h.Write(tx.Data)
	return h.Sum(nil)
}

// storedSubmission is a Submission as an idempotency record keeps it.
type storedSubmission struct {
	Hash                 common.Hash    `json:"hash"`
	From                 common.Address `json:"from"`
	To                   common.Address `json:"to"`
	Nonce                uint64         `json:"nonce"`
	ChainID              uint64         `json:"chainId"`
	Gas                  uint64         `json:"gas"`
	Value                string         `json:"value"`
	MaxFeePerGas         string         `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string         `json:"maxPriorityFeePerGas"`
	SubmittedAt          time.Time      `json:"submittedAt"`
}

func encodeSubmission(s *Submission) ([]byte, error) {
	return json.Marshal(storedSubmission{
		Hash: s.Hash, From: s.From, To: s.To, Nonce: s.Nonce, ChainID: s.ChainID, Gas: s.Gas,
		Value: s.Value.Dec(), MaxFeePerGas: s.MaxFeePerGas.Dec(), MaxPriorityFeePerGas: s.MaxPriorityFeePerGas.Dec(),
		SubmittedAt: s.SubmittedAt,
	})
}

func decodeSubmission(b []byte) (Submission, error) {
	var st storedSubmission
	if err := json.Unmarshal(b, &st); err != nil {
		return Submission{}, fmt.Errorf("wallet: stored response: %w", err)
	}
	s := Submission{Hash: st.Hash, From: st.From, To: st.To, Nonce: st.Nonce, ChainID: st.ChainID, Gas: st.Gas, SubmittedAt: st.SubmittedAt}
	for _, f := range []struct {
		dst *uint256.Int
		src string
	}{{&s.Value, st.Value}, {&s.MaxFeePerGas, st.MaxFeePerGas}, {&s.MaxPriorityFeePerGas, st.MaxPriorityFeePerGas}} {
		if err := f.dst.SetFromDecimal(f.src); err != nil {
			return Submission{}, fmt.Errorf("wallet: stored response: %w", err)
		}
	}
	return s, nil
}

// CheckRecipients enforces a key's allowedRecipients for the wallet self: the transaction's
// recipient and every beneficiary of its call must be self or on the list, and the call must be
// one the policy can read (ReadCall); else curvekit.ErrForbidden naming the address. An empty
// list allows everything. SignAndSubmit applies it; a front end may apply it earlier, to refuse
// before spending any budget.
func CheckRecipients(self common.Address, allowed []common.Address, tx *Tx) error {
	if len(allowed) == 0 {
		return nil
	}
	call, err := ReadCall(tx.To, tx.Data)
	if err != nil {
		return curvekit.WithCode(curvekit.CodeCallNotUnderstood,
			fmt.Errorf("%w: this API key has allowedRecipients, so it signs only calls curvekit can read; %w", curvekit.ErrForbidden, err))
	}
	for _, b := range call.Beneficiaries {
		if b.Address == self || slices.Contains(allowed, b.Address) {
			continue
		}
		if b.Role == "to" {
			return curvekit.WithCode(curvekit.CodeRecipientNotAllowed, fmt.Errorf("%w: recipient %s is not in this API key's allowedRecipients", curvekit.ErrForbidden, b.Address))
		}
		return curvekit.WithCode(curvekit.CodeRecipientNotAllowed, fmt.Errorf("%w: %s (%s) is not in this API key's allowedRecipients", curvekit.ErrForbidden, b.Address, b.Role))
	}
	return nil
}
