package wallet

import "context"

// Notifier hears of a custodial wallet's transaction each time its record changes for good: sent
// (state pending, after the node took it), then settled (mined, failed or dropped). It is called
// after the store committed the change, once per change on the replica that made it; it must
// not block for long (the push publisher records an event and returns).
type Notifier interface {
	TransactionChanged(ctx context.Context, t *Transaction)
}

// notify tells the Notifier, when there is one.
func (s *Service) notify(ctx context.Context, t *Transaction) {
	if s.cfg.Notifier != nil {
		s.cfg.Notifier.TransactionChanged(ctx, t)
	}
}

// settled is t as p settles it.
func (t *Transaction) settled(p *SettleTxParams) *Transaction {
	out := *t
	out.State, out.UpdatedAt = p.State, p.At
	if p.State == TxMined || p.State == TxFailed {
		out.Hash, out.Block, out.GasUsed = p.Hash, p.Block, p.GasUsed
		if p.GasPrice != nil {
			out.GasPrice.SetFromBig(p.GasPrice)
		}
	}
	return &out
}
