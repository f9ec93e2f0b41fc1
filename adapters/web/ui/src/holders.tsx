// A token's holders, largest first a page at a time (GET /tokens/:address/holders), each with its
// label (the curve, the pool, the burn address, the creator, a sniper), and how concentrated the
// supply is: the holder count, the ten largest holders' share (the curve and the pool aside) and
// the creator's share, from the token view. On the token page, a tab beside the trades.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, type S, type Token } from './api';
import { amount, share } from './format';
import { Tabs } from './tabs';
import { Address, ErrorText, Text } from './ui';

type Holder = S['Holder'];

const pageSize = 20;

const labels: Record<NonNullable<Holder['label']>, { text: string; title: string }> = {
  curve: { text: 'Curve', title: "The token's bonding curve: what it has not sold yet" },
  pool: { text: 'Pool', title: "The token's pool, since it graduated" },
  burn: { text: 'Burn', title: 'The burn address: nobody can spend these' },
  creator: { text: 'Creator', title: 'The wallet that launched the token' },
  sniper: { text: 'Sniper', title: 'Bought in the launch block or within seconds of it' },
};

const tokenTabs = [
  { id: 'trades', label: 'Trades' },
  { id: 'holders', label: 'Holders' },
];

/** TokenActivity is the token page's tabs: its trades (the tape it is given) and its holders. */
export function TokenActivity({ token, tab, trades }: { token: Token; tab?: string; trades: ComponentChildren }) {
  const selected = tab === 'holders' ? 'holders' : 'trades';
  const select = (id: string) => (location.hash = `#/token/${token.address}${id === 'trades' ? '' : '/' + id}`);
  return (
    <section class="card o-tape" aria-label="Trades and holders">
      <Tabs id="token" label="Trades and holders" tabs={tokenTabs} selected={selected} onSelect={select}>
        {selected === 'holders' ? <Holders token={token} /> : trades}
      </Tabs>
    </section>
  );
}

export function Holders({ token }: { token: Token }) {
  const [rows, setRows] = useState<Holder[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const pages = useRef(0);
  const asked = useRef('');

  async function load(after: string | null) {
    const key = `${token.address}:${after ?? ''}:${Date.now()}`;
    asked.current = key;
    setLoading(true);
    try {
      const page = await api<S['HolderList']>(`/tokens/${enc(token.address)}/holders?limit=${pageSize}` + (after ? `&cursor=${enc(after)}` : ''));
      if (asked.current !== key) return;
      pages.current = after ? pages.current + 1 : 1;
      setRows((prev) => (after ? [...prev, ...page.holders] : page.holders));
      setCursor(page.nextCursor);
      setError(null);
    } catch (e) {
      if (asked.current === key) setError(e);
    } finally {
      if (asked.current === key) setLoading(false);
    }
  }

  // Balances move with every trade: the first page follows them (the token view is reloaded after
  // each one); pages asked for with "more" stay as they were read.
  useEffect(() => {
    if (pages.current <= 1) load(null);
  }, [token.address, token.lastTradeAt, token.holders]);

  return (
    <div class="holders">
      <dl class="kv concentration" data-testid="concentration">
        <dt>Holders</dt>
        <dd data-testid="holder-count">{token.holders ?? '—'}</dd>
        <dt>Top 10</dt>
        <dd>
          <span data-testid="top10-share">{share(token.top10Share)}</span> <span class="muted">of the supply, the curve and the pool aside</span>
        </dd>
        <dt>Creator</dt>
        <dd>
          <span data-testid="creator-share">{share(token.creatorShare)}</span> <span class="muted">of the supply</span>
        </dd>
      </dl>
      <ErrorText error={error} />
      <div class="table-wrap">
        <table data-testid="holders" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Holder</th>
              <th scope="col">
                Balance (<Text value={token.symbol} />)
              </th>
              <th scope="col">Share</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((h, i) => (
              <tr key={h.address} data-holder={h.address} data-balance={h.balance} data-label={h.label ?? ''}>
                <td>{i + 1}</td>
                <td>
                  <Address value={h.address} />
                  {h.label && (
                    <>
                      {' '}
                      <span class={`badge label-${h.label}`} title={labels[h.label].title} data-testid="holder-label">
                        {labels[h.label].text}
                      </span>
                    </>
                  )}
                </td>
                <td title={h.balance}>{amount(h.balance)}</td>
                <td data-testid="holder-share">{share(h.share)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!loading && rows.length === 0 && !error && <p class="muted">Nobody holds this token yet.</p>}
      {cursor && (
        <button type="button" class="btn more" disabled={loading} data-testid="holders-more" onClick={() => load(cursor)}>
          More holders
        </button>
      )}
    </div>
  );
}
