// A token: its chart (live, resumable), trades tape and holders, stats, curve progress, the
// trade panel and the order panel.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, type Bar, type S, type Token, type Trade } from './api';
import type { Candles } from './chart';
import { ago, amount, change, ipfsCID, percentBps, price, safeLink, short } from './format';
import { TokenActivity } from './holders';
import { OrderPanel } from './orders';
import { session, sendTx, via, type Via } from './session';
import { useStore } from './store';
import { Address, Attribution, ErrorText, Logo, NamesakeNotice, Progress, Text, useAsync } from './ui';
import { account, connect, errorText } from './wallet';

const resolutions = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
const seconds: Record<string, number> = { '1m': 60, '5m': 300, '15m': 900, '1h': 3600, '4h': 14400, '1d': 86400 };

interface Meta {
  description?: string;
  website?: string;
  twitter?: string;
  telegram?: string;
}

/** metadata reads the token's metadata document when this server pins it (ipfs://). */
async function metadata(uri: string): Promise<Meta> {
  const cid = ipfsCID(uri);
  if (!cid) return {};
  const r = await fetch('/ipfs/' + enc(cid), { credentials: 'omit' });
  if (!r.ok) return {};
  const doc = (await r.json()) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { description: str(doc.description), website: str(doc.website), twitter: str(doc.twitter), telegram: str(doc.telegram) };
}

/** placeholder stands in for a token not loaded yet. */
function placeholder(address: string): Token {
  return {
    address, name: '\u00a0', symbol: '', creator: '', createdAt: 0, quote: { address: null, symbol: '', decimals: 18 }, price: null,
    marketCap: '', volume24h: '', buys24h: 0, sells24h: 0, liquidity: '', phase: 'curve', progressBps: 0,
  } as unknown as Token;
}

const tradeKey = (t: Trade) => `${t.txHash}:${t.logIndex}`;

/** merge joins two lists of trades, each once, newest first, at most 200. */
function merge(a: Trade[], b: Trade[]): Trade[] {
  const seen = new Map<string, Trade>();
  for (const t of [...a, ...b]) seen.set(tradeKey(t), t);
  return [...seen.values()].sort((x, y) => y.block - x.block || y.logIndex - x.logIndex).slice(0, 200);
}

export function TokenPage({ address, tab }: { address: string; tab?: string }) {
  const tok = useAsync(() => api<Token>(`/tokens/${enc(address)}`), [address]);
  const stats = useAsync(() => api<S['Stats']>(`/tokens/${enc(address)}/stats`), [address]);
  const [meta, setMeta] = useState<Meta>({});
  const [res, setRes] = useState<string>('1m');
  const [trades, setTrades] = useState<Trade[]>([]);
  const [live, setLive] = useState(false);
  const chartEl = useRef<HTMLDivElement>(null);
  const chart = useRef<Candles | null>(null);
  const t = tok.data;

  useEffect(() => {
    if (t) metadata(t.uri).then(setMeta, () => setMeta({}));
  }, [t?.uri]);

  // The chart follows the token stream: a reset drops everything and what follows rebuilds it;
  // a dropped connection resumes from its Last-Event-ID (EventSource sends it), so a cut never
  // leaves a gap or a doubled trade.
  useEffect(() => {
    let es: EventSource | undefined;
    let closed = false;
    let reloadStats: ReturnType<typeof setTimeout> | undefined;
    import('./chart').then(({ Candles }) => {
      if (closed || !chartEl.current) return;
      chart.current = new Candles(chartEl.current);
      const from = Math.floor(Date.now() / 1000) - 300 * seconds[res];
      es = new EventSource(`/tokens/${enc(address)}/stream?res=${res}&from=${from}`);
      es.onopen = () => setLive(true);
      es.onerror = () => setLive(false);
      es.addEventListener('reset', (ev) => {
        const r = JSON.parse((ev as MessageEvent).data) as S['Reset'];
        chart.current?.reset(r.full ? undefined : r.from);
        // The tape is the latest trades; a reorganization may have removed some, so it is then
        // rebuilt rather than merged.
        api<S['TradeList']>(`/tokens/${enc(address)}/trades?limit=50`).then(
          (p) => setTrades((prev) => (r.reason === 'reorg' ? p.trades : merge(prev, p.trades))),
          () => undefined,
        );
      });
      es.addEventListener('bar', (ev) => chart.current?.bar(JSON.parse((ev as MessageEvent).data) as Bar));
      es.addEventListener('trade', (ev) => {
        const tr = JSON.parse((ev as MessageEvent).data) as Trade;
        setTrades((prev) => merge(prev, [tr]));
        clearTimeout(reloadStats);
        reloadStats = setTimeout(() => (stats.reload(), tok.reload()), 500);
      });
    });
    return () => {
      closed = true;
      clearTimeout(reloadStats);
      es?.close();
      chart.current?.remove();
      chart.current = null;
    };
  }, [address, res]);

  if (tok.error) return <ErrorText error={tok.error} />;
  // Until the token arrives the page keeps its final layout (blank figures), so nothing moves
  // when it does.
  const loaded = !!t;
  const v: Token = t ?? placeholder(address);
  const s = stats.data;
  const links = (['website', 'twitter', 'telegram'] as const).map((k) => [k, safeLink(meta[k])] as const).filter(([, u]) => u);
  return (
    <div class="token-page">
      <header class="token-head">
        {loaded ? <Logo address={v.address} symbol={v.symbol} uri={v.uri} size={64} /> : <span class="logo logo-fallback logo-64" aria-hidden="true" />}
        <div>
          <h1>
            <span data-testid="token-name">
              <Text value={v.name} />
            </span>{' '}
            <span class="token-symbol">
              <Text value={v.symbol} />
            </span>
          </h1>
          <p class="muted">
            {loaded ? (
              <>
                <Address value={v.address} /> · created by <Address value={v.creator} /> {ago(v.createdAt)} · paired with <Text value={v.quote.symbol} />
              </>
            ) : (
              'Loading…'
            )}
          </p>
          {loaded && <NamesakeNotice token={v} />}
          {meta.description && (
            <p class="description" data-testid="description">
              <Text value={meta.description} />
            </p>
          )}
          {links.length > 0 && (
            <p class="links">
              {links.map(([k, u]) => (
                <a key={k} href={u!} rel="noopener noreferrer nofollow" target="_blank">
                  {k}
                </a>
              ))}
            </p>
          )}
        </div>
      </header>
      <div class="token-grid">
        <div class="main-col">
          <section class="card o-chart" aria-label="Price chart">
            <div class="row between">
              <div role="group" aria-label="Resolution" class="seg">
                {resolutions.map((r) => (
                  <button type="button" key={r} aria-pressed={r === res} class={r === res ? 'on' : ''} onClick={() => setRes(r)}>
                    {r}
                  </button>
                ))}
              </div>
              <span class={live ? 'live on' : 'live'} data-testid="live">
                {live ? 'Live' : 'Connecting…'}
              </span>
            </div>
            <div id="chart" class="chart" ref={chartEl} data-testid="chart" />
            <Attribution />
          </section>
          <TokenActivity
            token={v}
            tab={tab}
            trades={
              <>
                <div class="table-wrap">
                  <table class="tape" data-testid="tape">
                    <thead>
                      <tr>
                        <th scope="col">Side</th>
                        <th scope="col">
                          <Text value={v.quote.symbol} />
                        </th>
                        <th scope="col">
                          <Text value={v.symbol} />
                        </th>
                        <th scope="col">Price</th>
                        <th scope="col">Trader</th>
                        <th scope="col">When</th>
                      </tr>
                    </thead>
                    <tbody>
                      {trades.map((tr) => (
                        <tr key={tradeKey(tr)} data-tx={tr.txHash}>
                          <td class={tr.side === 'buy' ? 'up' : 'down'}>{tr.side}</td>
                          <td>{amount(tr.quoteAmount)}</td>
                          <td>{amount(tr.tokenAmount)}</td>
                          <td>{price(tr.price)}</td>
                          <td>
                            <Address value={tr.trader} />
                          </td>
                          <td>{ago(tr.time)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {trades.length === 0 && <p class="muted">No trades yet.</p>}
              </>
            }
          />
        </div>
        <div class="side-col">
          <TradePanel token={v} trades={trades} />
          <OrderPanel token={v} />
          <section class="card o-stats" aria-labelledby="stats-title">
            <h2 id="stats-title">Stats</h2>
            <dl class="kv">
              <dt>Price</dt>
              <dd data-testid="stat-price">
                {price(s?.price ?? v.price)} <Text value={v.quote.symbol} />
              </dd>
              <dt>24h change</dt>
              <dd class={(s?.change24h ?? 0) >= 0 ? 'up' : 'down'}>{change(s?.change24h)}</dd>
              <dt>Market cap</dt>
              <dd>
                {amount(v.marketCap)} <Text value={v.quote.symbol} />
              </dd>
              <dt>24h volume</dt>
              <dd>
                {amount(v.volume24h)} <Text value={v.quote.symbol} />
              </dd>
              <dt>24h trades</dt>
              <dd>
                {v.buys24h} buys · {v.sells24h} sells
              </dd>
              <dt>Liquidity</dt>
              <dd>
                {amount(v.liquidity)} <Text value={v.quote.symbol} />
              </dd>
            </dl>
            <h3>{v.phase === 'graduated' ? 'Graduated to its pool' : 'Bonding curve'}</h3>
            <Progress bps={v.progressBps} label="Graduation progress" />
            {v.phase === 'curve' && <p class="muted">{percentBps(v.progressBps)} of the way to graduation.</p>}
          </section>
        </div>
      </div>
    </div>
  );
}

function TradePanel({ token, trades }: { token: Token; trades: Trade[] }) {
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [amt, setAmt] = useState('');
  const [slip, setSlip] = useState('1');
  const [quote, setQuote] = useState<S['Quote'] | null>(null);
  const [qErr, setQErr] = useState('');
  const [status, setStatus] = useState('');
  const [hash, setHash] = useState('');
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const sess = useStore(session);
  const acc = useStore(account);
  const unit = side === 'buy' ? token.quote.symbol : token.symbol;

  // The quote follows the amount and every trade on the tape.
  useEffect(() => {
    if (!amt.trim()) {
      setQuote(null);
      setQErr('');
      return;
    }
    const h = setTimeout(() => {
      api<S['Quote']>(`/tokens/${enc(token.address)}/quote?type=${side}&amount=${enc(amt.trim())}`).then(
        (q) => (setQuote(q), setQErr('')),
        (e) => (setQuote(null), setQErr((e as Error).message)),
      );
    }, 200);
    return () => clearTimeout(h);
  }, [amt, side, token.address, trades[0]?.txHash]);

  const indexed = hash && trades.some((t) => t.txHash.toLowerCase() === hash.toLowerCase());
  useEffect(() => {
    if (indexed) setStatus('Indexed: your trade is on the tape.');
  }, [indexed]);

  async function submit(how: Via) {
    setErr(null);
    setHash('');
    setBusy(true);
    try {
      const recipient = how === 'wallet' ? (acc ?? (await connect())) : sess.user!.wallet;
      setStatus('Composing…');
      const b = await api<S['Build']>(`/tokens/${enc(token.address)}/build-tx`, { json: { type: side, amount: amt.trim(), slippage: slip, recipient } });
      if (b.approval) {
        setStatus(`Approve ${b.approval.amount} ${unit} first: confirm in your wallet…`);
        await sendTx(b.approval, `Approve ${b.approval.amount} ${unit} for ${short(b.approval.spender)}`, how, true);
      }
      setStatus(how === 'wallet' ? 'Confirm in your wallet…' : 'Sending…');
      const what = `${side === 'buy' ? 'Buy' : 'Sell'} ${token.symbol}: ${b.quote.amountIn} ${unit} for at least ${b.minAmountOut} ${side === 'buy' ? token.symbol : token.quote.symbol}`;
      const h = await sendTx(b, what, how);
      setHash(h);
      setStatus('Sent: waiting for the indexer…');
    } catch (e) {
      setErr(e);
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  const how = via();
  return (
    <section class="card trade" aria-labelledby="trade-title">
      <h2 id="trade-title">Trade</h2>
      <div role="group" aria-label="Side" class="seg wide">
        {(['buy', 'sell'] as const).map((s) => (
          <button type="button" key={s} aria-pressed={side === s} class={side === s ? 'on ' + s : ''} onClick={() => setSide(s)}>
            {s === 'buy' ? 'Buy' : 'Sell'}
          </button>
        ))}
      </div>
      <label>
        Amount (<Text value={unit} />)
        <input inputMode="decimal" autoComplete="off" value={amt} placeholder="0.0" data-testid="amount" onInput={(e) => setAmt((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Slippage (%)
        <input inputMode="decimal" value={slip} onInput={(e) => setSlip((e.target as HTMLInputElement).value)} />
      </label>
      <div class="quote" aria-live="polite" data-testid="quote">
        {quote && (
          <p>
            You get about <strong>{amount(quote.amountOut, 6)}</strong> <Text value={side === 'buy' ? token.symbol : token.quote.symbol} /> · fee {amount(quote.fee, 6)} <Text value={token.quote.symbol} /> · impact {percentBps(quote.priceImpactBps)}
            {quote.graduates && ' · this trade graduates the token'}
          </p>
        )}
        {qErr && <p class="error">{qErr}</p>}
      </div>
      {how === 'wallet' && (
        <button type="button" class={`btn btn-primary ${side}`} disabled={busy || !quote} data-testid="confirm-wallet" onClick={() => submit('wallet')}>
          Confirm in wallet
        </button>
      )}
      {sess.user && (
        <button type="button" class={how === 'wallet' ? 'btn' : `btn btn-primary ${side}`} disabled={busy || !quote} data-testid="use-custodial" onClick={() => submit('custodial')}>
          Use my custodial wallet…
        </button>
      )}
      {!how && <p class="muted">Install a browser wallet, or sign in to trade with your custodial wallet.</p>}
      <p class="status" aria-live="polite" data-testid="trade-status">
        <Text value={status} />
      </p>
      {hash && (
        <p class="muted">
          Transaction <code data-testid="trade-hash">{hash}</code>
        </p>
      )}
      {err ? (
        <p class="error" role="alert">
          {errorText(err)}
        </p>
      ) : null}
    </section>
  );
}
