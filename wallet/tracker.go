package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit"
)

// Transactions returns a page of the account wallet's sent transactions, newest first; limit
// is 1 to MaxTransactions.
func (s *Service) Transactions(ctx context.Context, accountID, cursor string, limit int) (TransactionPage, error) {
	if err := checkAccount(accountID); err != nil {
		return TransactionPage{}, err
	}
	w, err := s.cfg.Store.WalletByAccount(ctx, accountID)
	if errors.Is(err, curvekit.ErrNotFound) {
		return TransactionPage{}, fmt.Errorf("%w: this account has no custodial wallet", curvekit.ErrNotFound)
	}
	if err != nil {
		return TransactionPage{}, err
	}
	return s.cfg.Store.Transactions(ctx, TransactionQuery{WalletID: w.ID, Cursor: cursor, Limit: min(max(limit, 1), MaxTransactions)})
}

// MaxTransactions bounds a page of Transactions.
const MaxTransactions = 100

// trackBatch is how many transactions in flight one round of Track looks at.
const trackBatch = 200

// Track follows the sent transactions until ctx ends, a round every TrackEvery: each one mined
// is settled from its receipt, and one left unmined for ReplaceAfter blocks is replaced. Every
// replica may run it: settling is a compare-and-set, and a replacement is claimed first, so one
// replica replaces a given transaction.
func (s *Service) Track(ctx context.Context) {
	tick := time.NewTicker(s.cfg.TrackEvery)
	defer tick.Stop()
	for {
		if err := s.TrackOnce(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("wallet: track transactions", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// TrackOnce is one round of Track.
func (s *Service) TrackOnce(ctx context.Context) error {
	open, err := s.cfg.Store.OpenTransactions(ctx, trackBatch)
	if err != nil || len(open) == 0 {
		return err
	}
	head, err := s.cfg.Broadcaster.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("wallet: head: %w", err)
	}
	mined := map[common.Address]uint64{} // nonces at the head, asked once a round
	var errs []error
	now := s.cfg.Now()
	for i := range open {
		if t := &open[i]; t.ClaimedBy != "" && t.ClaimedBy != s.cfg.Replica && now.Before(t.ClaimedUntil) {
			continue // its sender awaits the node's answer, or another replica replaces it
		}
		if err := s.follow(ctx, &open[i], head, mined); err != nil {
			errs = append(errs, fmt.Errorf("transaction %s: %w", open[i].ID, err))
		}
	}
	return errors.Join(errs...)
}

// follow settles t from its receipt, drops it when its nonce went to another, or replaces it.
func (s *Service) follow(ctx context.Context, t *Transaction, head uint64, mined map[common.Address]uint64) error {
	// The nonce is read before the receipts: when it says the nonce is used and none of the
	// hashes has a receipt after it, another transaction used it.
	nonce, ok := mined[t.From]
	if !ok {
		n, err := s.cfg.Broadcaster.Nonce(ctx, t.From)
		switch {
		case err == nil:
			nonce, ok = n, true
			mined[t.From] = n
		case !errors.Is(err, errors.ErrUnsupported):
			return fmt.Errorf("nonce: %w", err)
		}
	}
	for i := len(t.Hashes) - 1; i >= 0; i-- {
		r, err := s.cfg.Broadcaster.Receipt(ctx, t.Hashes[i])
		if errors.Is(err, curvekit.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("receipt: %w", err)
		}
		state := TxMined
		if r.Status == types.ReceiptStatusFailed {
			state = TxFailed
		}
		return s.settle(ctx, t, SettleTxParams{ID: t.ID, State: state, Hash: t.Hashes[i], Block: r.Block, GasUsed: r.GasUsed, GasPrice: r.GasPrice, At: s.cfg.Now().UTC()})
	}
	if ok && nonce > t.Nonce {
		s.cfg.Logger.Warn("wallet: transaction dropped: another used its nonce", "wallet", t.WalletID, "nonce", t.Nonce, "hash", t.Hash)
		return s.settle(ctx, t, SettleTxParams{ID: t.ID, State: TxDropped, At: s.cfg.Now().UTC()})
	}
	if head < t.SentBlock+s.cfg.ReplaceAfter {
		return nil
	}
	return s.replace(ctx, t, head)
}

// settle ends t with its events; another replica having ended it first is no failure (that
// one recorded them).
func (s *Service) settle(ctx context.Context, t *Transaction, p SettleTxParams) error {
	p.Events = s.events(t.settled(&p))
	if p.State == TxMined || p.State == TxFailed {
		// On chain, so it was sent: its sent event goes first, in case the sender never
		// recorded it (the node's answer was lost, or the sender died before its release).
		// Its id is stable, so one recorded before is not recorded again.
		sent := *t
		sent.State = TxPending
		p.Events = append(s.events(&sent), p.Events...)
	}
	err := s.cfg.Store.SettleTransaction(ctx, p)
	if errors.Is(err, curvekit.ErrConflict) {
		return nil
	}
	if err == nil {
		s.committed(p.Events)
	}
	return err
}

// replace sends t again with the same nonce and fees bumped, under a claim that keeps other
// replicas from replacing it at the same time.
func (s *Service) replace(ctx context.Context, t *Transaction, head uint64) error {
	suggested, err := s.cfg.Broadcaster.SuggestFees(ctx)
	if err != nil {
		return fmt.Errorf("fees: %w", err)
	}
	fees, err := Bump(t.Fees, suggested, s.cfg.MaxFeePerGas)
	if err != nil {
		// Left as it is: it may still be mined, and fees may fall.
		s.cfg.Logger.Warn("wallet: cannot replace a transaction", "wallet", t.WalletID, "nonce", t.Nonce, "hash", t.Hash, "err", err)
		return nil
	}
	now := s.cfg.Now().UTC()
	err = s.cfg.Store.ClaimTransaction(ctx, ClaimTxParams{ID: t.ID, Hash: t.Hash, Owner: s.cfg.Replica, Now: now, Until: now.Add(s.cfg.ClaimFor)})
	if errors.Is(err, curvekit.ErrConflict) {
		return nil // another replica replaces it, or it moved on
	}
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	w, err := s.cfg.Store.Wallet(ctx, t.WalletID)
	if err != nil {
		return err
	}
	key, err := s.unseal(ctx, &w)
	if err != nil {
		return err
	}
	to := t.To
	signed, err := s.cfg.Signer.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: new(big.Int).SetUint64(t.ChainID), Nonce: t.Nonce, GasTipCap: fees.MaxPriorityFeePerGas, GasFeeCap: fees.MaxFeePerGas,
		Gas: t.Gas, To: &to, Value: t.Value.ToBig(), Data: t.Data,
	}), key)
	if err != nil {
		return err
	}
	if err := s.cfg.Broadcaster.Send(ctx, signed); err != nil {
		// A used nonce is settled next round, from a receipt or the nonce; the claim lapses.
		return fmt.Errorf("send replacement: %w", err)
	}
	s.cfg.Logger.Info("wallet: transaction replaced", "wallet", t.WalletID, "nonce", t.Nonce, "replaced", t.Hash, "hash", signed.Hash(),
		"maxFeePerGas", fees.MaxFeePerGas, "maxPriorityFeePerGas", fees.MaxPriorityFeePerGas)
	return s.cfg.Store.ReplaceTransaction(ctx, ReplaceTxParams{ID: t.ID, Owner: s.cfg.Replica, Hash: signed.Hash(), Fees: fees, SentBlock: head, At: s.cfg.Now().UTC()})
}
