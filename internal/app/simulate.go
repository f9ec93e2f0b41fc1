package app

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/txbuild"
)

// simulator sends real trades to the devnet: buys and sells of the demo tokens from the devnet's
// spare accounts, built by txbuild from the chain's state, so the API shows live data that came
// through the indexer.
type simulator struct {
	dev     *devnet.Devnet
	chain   *evm.Chain
	builder *txbuild.Builder
	log     *slog.Logger
	rand    *rand.Rand
	tokens  []simToken
	traders []devnet.Account

	// What run has done since its last progress line.
	buys, sells, failed int
	lastErr             error
}

// simulatorProgressEvery is how often run logs what it sent, so that a user at info level sees
// the simulator work without a line per trade.
const simulatorProgressEvery = 30 * time.Second

type simToken struct {
	token, curve, quote common.Address
	params              curve.Params
}

func newSimulator(dev *devnet.Devnet, chain *evm.Chain, b *txbuild.Builder, log *slog.Logger) (*simulator, error) {
	s := &simulator{dev: dev, chain: chain, builder: b, log: log, rand: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))}
	// Accounts[0:4] launched the demo tokens; the rest trade.
	s.traders = dev.Accounts[4:]
	if len(s.traders) == 0 {
		return nil, fmt.Errorf("simulator: the devnet has no spare accounts")
	}
	for _, l := range []devnet.Launch{dev.ETHToken, dev.USDToken, dev.GraduatedToken} {
		info, err := chain.Launch(context.Background(), l.Token)
		if err != nil {
			return nil, err
		}
		s.tokens = append(s.tokens, simToken{token: l.Token, curve: l.Curve, quote: info.Quote.Address, params: info.Params})
	}
	return s, nil
}

func (s *simulator) run(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	s.log.Info("simulator sending trades", "every", every, "tokens", len(s.tokens), "traders", len(s.traders))
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := s.step(ctx); err != nil && ctx.Err() == nil {
			// The first failure since the last progress line is logged; the rest are counted.
			if s.failed == 0 {
				s.log.Warn("simulated trade failed", "err", err)
			}
			s.failed++
			s.lastErr = err
		}
		if time.Since(last) >= simulatorProgressEvery {
			args := []any{"trades", s.buys + s.sells, "buys", s.buys, "sells", s.sells, "over", time.Since(last).Round(time.Second)}
			if s.failed > 0 {
				args = append(args, "failed", s.failed, "lastErr", s.lastErr)
			}
			s.log.Info("simulator progress", args...)
			s.buys, s.sells, s.failed, s.lastErr, last = 0, 0, 0, nil, time.Now()
		}
	}
}

// step sends one random trade: mostly small buys, sometimes a sell of part of a holding. A buy
// is at most 1/150 of the graduation threshold, so the curves graduate over minutes, not seconds.
func (s *simulator) step(ctx context.Context) error {
	tk := s.tokens[s.rand.IntN(len(s.tokens))]
	acc := s.traders[s.rand.IntN(len(s.traders))]
	m, err := s.chain.Market(ctx, tk.token)
	if err != nil {
		return err
	}
	held, err := s.chain.Balance(ctx, tk.token, acc.Address)
	if err != nil {
		return err
	}
	side := curvekit.Buy
	var amount uint256.Int
	if !held.IsZero() && s.rand.IntN(100) < 40 {
		side = curvekit.Sell
		amount.Div(&held, uint256.NewInt(uint64(2+s.rand.IntN(4))))
	} else {
		amount.Div(&tk.params.GraduationQuote, uint256.NewInt(150))
		amount.Mul(&amount, uint256.NewInt(uint64(1+s.rand.IntN(100))))
		amount.Div(&amount, uint256.NewInt(100))
	}
	if amount.IsZero() {
		return nil
	}
	spender := tk.curve
	if m.State.Graduated {
		spender = s.builder.Config().Router
	}
	spent := tk.quote
	if side == curvekit.Sell {
		spent = tk.token
	}
	trade := txbuild.Trade{Side: side, Amount: amount, SlippageBps: txbuild.DefaultSlippageBps, From: acc.Address}
	if spent != (common.Address{}) {
		a, err := s.chain.Allowance(ctx, spent, acc.Address, spender)
		if err != nil {
			return err
		}
		trade.Allowance = &a
	}
	q, plan, err := s.builder.Trade(&m, trade)
	if err != nil {
		return fmt.Errorf("build %s: %w", side, err)
	}
	for _, tx := range []*txbuild.Tx{plan.Approval, &plan.Tx} {
		if tx == nil {
			continue
		}
		to := tx.To
		if _, err := s.dev.Send(ctx, acc.Key, &to, tx.Value.ToBig(), tx.Data); err != nil {
			return fmt.Errorf("send %s: %w", side, err)
		}
	}
	if side == curvekit.Buy {
		s.buys++
	} else {
		s.sells++
	}
	s.log.Debug("simulated trade", "token", tk.token, "side", side, "venue", q.Venue, "in", amount.Dec(), "out", q.Out.Dec())
	return nil
}
