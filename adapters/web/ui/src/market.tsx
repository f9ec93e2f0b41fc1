// The market: the token list as GET /tokens pages it (sort, phase, search, cursor), prices moving
// live from /tokens/stream.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type S, type Token } from './api';
import { amount, change, price, visible } from './format';
import { Logo, NamesakeMark, Progress, Text } from './ui';

type Sort = 'newest' | 'volume24h' | 'marketCap' | 'progress';

export function Market() {
  const [sort, setSort] = useState<Sort>('newest');
  const [phase, setPhase] = useState('');
  const [q, setQ] = useState('');
  const [tokens, setTokens] = useState<Token[]>([]);
  const [changes, setChanges] = useState<Record<string, number | null>>({});
  const [flash, setFlash] = useState<Record<string, 'up' | 'down'>>({});
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(true);
  const query = useRef('');

  async function load(after: string | null) {
    const p = new URLSearchParams({ sort, limit: '24' });
    if (phase) p.set('phase', phase);
    if (q.trim()) p.set('q', q.trim());
    if (after) p.set('cursor', after);
    const key = p.toString();
    query.current = key;
    setLoading(true);
    try {
      const page = await api<S['TokenList']>('/tokens?' + key);
      if (query.current !== key) return;
      setTokens((prev) => (after ? [...prev, ...page.tokens] : page.tokens));
      setCursor(page.nextCursor ?? null);
      setError('');
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    const t = setTimeout(() => load(null), q ? 250 : 0);
    return () => clearTimeout(t);
  }, [sort, phase, q]);

  // Live prices: a tick updates its token in place; a refresh after new trades reloads the first
  // page when only that one is shown (a new launch, a new order).
  const shown = useRef<Token[]>([]);
  shown.current = tokens;
  useEffect(() => {
    const es = new EventSource('/tokens/stream');
    let timer: ReturnType<typeof setTimeout> | undefined;
    es.addEventListener('tick', (ev) => {
      const t = JSON.parse((ev as MessageEvent).data) as S['Tick'];
      setTokens((prev) =>
        prev.map((v) => {
          if (v.address !== t.token) return v;
          if (v.price !== null && t.price !== null && t.price !== v.price) {
            const dir = t.price > v.price ? 'up' : 'down';
            setFlash((f) => ({ ...f, [v.address]: dir }));
            setTimeout(() => setFlash((f) => ({ ...f, [v.address]: undefined as never })), 800);
          }
          return { ...v, price: t.price, marketCap: t.marketCap, liquidity: t.liquidity, volume24h: t.volume24h, progressBps: t.progressBps, phase: t.phase, reserves: t.reserves, poolReserves: t.poolReserves };
        }),
      );
      setChanges((c) => ({ ...c, [t.token]: t.change24h }));
    });
    es.addEventListener('refresh', (ev) => {
      const r = JSON.parse((ev as MessageEvent).data) as S['Refresh'];
      if (r.reason === 'connect') return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (shown.current.length <= 24) load(null);
      }, 300);
    });
    return () => {
      clearTimeout(timer);
      es.close();
    };
  }, [sort, phase, q]);

  return (
    <div>
      <h1>Market</h1>
      <form class="toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Sort
          <select value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as Sort)}>
            <option value="newest">Newest</option>
            <option value="volume24h">24h volume</option>
            <option value="marketCap">Market cap</option>
            <option value="progress">Graduation progress</option>
          </select>
        </label>
        <label>
          Phase
          <select value={phase} onChange={(e) => setPhase((e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            <option value="curve">On the curve</option>
            <option value="graduated">Graduated</option>
          </select>
        </label>
        <label class="grow">
          Search
          <input type="search" value={q} maxLength={100} placeholder="Name or symbol" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </label>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="grid" aria-busy={loading} data-testid="token-list">
        {tokens.map((t) => (
          <li key={t.address} class={`token-card ${flash[t.address] ?? ''}`} data-token={t.address}>
            <a href={`#/token/${t.address}`} class="token-link">
              <Logo address={t.address} symbol={t.symbol} uri={t.uri} />
              <span class="token-names">
                <span class="token-name">
                  <Text value={t.name} />
                </span>
                <span class="token-symbol">
                  <Text value={t.symbol} />
                </span>
              </span>
              <NamesakeMark token={t} />
            </a>
            <dl class="token-figures">
              <div>
                <dt>Price</dt>
                <dd data-testid="price">
                  {price(t.price)} <Text value={t.quote.symbol} />
                </dd>
              </div>
              <div>
                <dt>Market cap</dt>
                <dd>
                  {amount(t.marketCap)} <Text value={t.quote.symbol} />
                </dd>
              </div>
              <div>
                <dt>24h</dt>
                <dd class={changes[t.address] === undefined || changes[t.address] === null ? '' : changes[t.address]! >= 0 ? 'up' : 'down'}>
                  {changes[t.address] !== undefined ? change(changes[t.address]) : amount(t.volume24h) + ' vol'}
                </dd>
              </div>
            </dl>
            {t.phase === 'graduated' ? <span class="badge">Graduated</span> : <Progress bps={t.progressBps} label={`${visible(t.symbol)} graduation progress`} />}
          </li>
        ))}
      </ul>
      {!loading && tokens.length === 0 && <p class="muted">No token matches.</p>}
      {cursor && (
        <button type="button" class="btn more" disabled={loading} onClick={() => load(cursor)}>
          Load more
        </button>
      )}
    </div>
  );
}
