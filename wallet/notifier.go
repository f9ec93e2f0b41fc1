package wallet

import "github.com/curvekit/curvekit/push"

// Notifier turns a custodial wallet's transaction into the events its changes cause: sent
// (state pending, after the node took it), then settled (mined, failed or dropped). A mined or
// failed settlement carries the sent event too, first, for a send whose answer was lost (an
// event's id is stable: one recorded before is not recorded again). The events
// are built before the change and committed by the store in the same transaction as the change
// (ReleaseTxParams.Events, SettleTxParams.Events): the outbox, so that no change is committed
// without its events nor the other way round. Committed is told after such a commit, once per
// change on the replica that made it; it must not block (push wakes its sender and streams).
type Notifier interface {
	TransactionEvents(t *Transaction) []push.Event
	Committed()
}

// events are the events of t's change, none without a Notifier.
func (s *Service) events(t *Transaction) []push.Event {
	if s.cfg.Notifier == nil {
		return nil
	}
	return s.cfg.Notifier.TransactionEvents(t)
}

// committed tells the Notifier that the store committed events.
func (s *Service) committed(events []push.Event) {
	if s.cfg.Notifier != nil && len(events) > 0 {
		s.cfg.Notifier.Committed()
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
