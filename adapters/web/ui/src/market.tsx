// The market: tabs over GET /tokens (all tokens with their sorts, trending, about to graduate,
// graduated) and the king of the hill of each pairing asset (GET /tokens/king), prices moving live
// from /tokens/stream and the crown passing with its `king` event. The selected tab is in the URL
// (#/market/<tab>), so reload, back and forward keep it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, getConfig, type S, type Token } from './api';
import { ago, amount, change, price, visible } from './format';
import { Tabs } from './tabs';
import { Logo, NamesakeMark, Progress, Text } from './ui';

type Sort = 'newest' | 'volume24h' | 'marketCap' | 'progress' | 'trending' | 'gainers1h' | 'gainers24h' | 'losers24h';
type King = S['King'];

export const marketTabs = [
  { id: 'all', label: 'All tokens' },
  { id: 'trending', label: 'Trending' },
  { id: 'graduating', label: 'About to graduate' },
  { id: 'graduated', label: 'Graduated' },
  { id: 'king', label: 'King of the hill' },
];

/** marketTab is the tab a URL names, all tokens when it names none. */
function marketTab(tab: string | undefined): string {
  return marketTabs.some((t) => t.id === tab) ? tab! : 'all';
}

/** tabQuery is what GET /tokens is asked for a list tab. */
function tabQuery(tab: string, sort: Sort, phase: string): Record<string, string> {
  switch (tab) {
    case 'trending':
      return { sort: 'trending' };
    case 'graduating':
      return { sort: 'progress', phase: 'curve', progressMin: '80', progressMax: '100' };
    case 'graduated':
      return { sort: 'newest', graduatedSince: '1' };
  }
  return phase ? { sort, phase } : { sort };
}

/** assetKey names a pairing asset as GET /tokens/king's quote parameter does. */
const assetKey = (a: S['Asset']) => a.address ?? 'ETH';

export function Market({ tab: urlTab }: { tab?: string }) {
  const tab = marketTab(urlTab);
  const [sort, setSort] = useState<Sort>('newest');
  const [phase, setPhase] = useState('');
  const [q, setQ] = useState('');
  const [tokens, setTokens] = useState<Token[]>([]);
  const [kings, setKings] = useState<{ asset: S['Asset']; king: King | null }[] | null>(null);
  const [changes, setChanges] = useState<Record<string, number | null>>({});
  const [flash, setFlash] = useState<Record<string, 'up' | 'down'>>({});
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(true);
  const query = useRef('');

  async function load(after: string | null) {
    if (tab === 'king') return loadKings();
    const p = new URLSearchParams({ ...tabQuery(tab, sort, phase), limit: '24' });
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
      if (query.current === key) setError((e as Error).message);
    } finally {
      if (query.current === key) setLoading(false);
    }
  }

  // The king of each pairing asset; an asset none of whose tokens trades on its curve has none.
  async function loadKings() {
    const key = 'king';
    query.current = key;
    setLoading(true);
    try {
      const assets = (await getConfig()).quoteAssets;
      const found = await Promise.all(
        assets.map((asset) =>
          api<King>('/tokens/king?quote=' + assetKey(asset)).then(
            (king) => ({ asset, king }),
            (e) => {
              if (e instanceof ApiError && e.status === 404) return { asset, king: null };
              throw e;
            },
          ),
        ),
      );
      if (query.current !== key) return;
      setKings(found);
      setError('');
    } catch (e) {
      if (query.current === key) setError((e as Error).message);
    } finally {
      if (query.current === key) setLoading(false);
    }
  }

  const lastTab = useRef(tab);
  useEffect(() => {
    // Another tab's list is not this one's: it goes at once rather than when the new one comes.
    if (lastTab.current !== tab) setTokens([]);
    lastTab.current = tab;
    setCursor(null);
    const t = setTimeout(() => load(null), q ? 250 : 0);
    return () => clearTimeout(t);
  }, [tab, sort, phase, q]);

  // Live prices: a tick updates its token in place (in the list and on the throne); a refresh
  // after new trades reloads a list when only its first page is shown (a new launch, a new order);
  // a new king takes its asset's throne.
  const shown = useRef<Token[]>([]);
  shown.current = tokens;
  const reload = useRef(load);
  reload.current = load;
  const current = useRef(tab);
  current.current = tab;
  useEffect(() => {
    const es = new EventSource('/tokens/stream');
    let timer: ReturnType<typeof setTimeout> | undefined;
    es.addEventListener('tick', (ev) => {
      const t = JSON.parse((ev as MessageEvent).data) as S['Tick'];
      const apply = (v: Token): Token => {
        if (v.address !== t.token) return v;
        if (v.price !== null && t.price !== null && t.price !== v.price) {
          const dir = t.price > v.price ? 'up' : 'down';
          setFlash((f) => ({ ...f, [v.address]: dir }));
          setTimeout(() => setFlash((f) => ({ ...f, [v.address]: undefined as never })), 800);
        }
        return { ...v, price: t.price, marketCap: t.marketCap, liquidity: t.liquidity, volume24h: t.volume24h, progressBps: t.progressBps, phase: t.phase, reserves: t.reserves, poolReserves: t.poolReserves };
      };
      setTokens((prev) => prev.map(apply));
      setKings((prev) => prev && prev.map((k) => (k.king ? { ...k, king: { ...k.king, token: apply(k.king.token) } } : k)));
      setChanges((c) => ({ ...c, [t.token]: t.change24h }));
    });
    es.addEventListener('king', (ev) => {
      const k = JSON.parse((ev as MessageEvent).data) as King;
      setKings((prev) => prev && prev.map((e) => (assetKey(e.asset).toLowerCase() === assetKey(k.token.quote).toLowerCase() ? { ...e, king: k } : e)));
    });
    es.addEventListener('refresh', (ev) => {
      const r = JSON.parse((ev as MessageEvent).data) as S['Refresh'];
      if (r.reason === 'connect' || current.current === 'king') return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (shown.current.length <= 24) reload.current(null);
      }, 300);
    });
    return () => {
      clearTimeout(timer);
      es.close();
    };
  }, []);

  const select = (id: string) => (location.hash = id === 'all' ? '#/' : '#/market/' + id);
  // Ranked by a change, the card shows that change; else the day's change once a tick brought it.
  const ranked = tab === 'all' ? sort : '';
  const shownChange = (t: Token) =>
    ranked === 'gainers1h' ? { label: '1h', value: t.change1h ?? null } : { label: '24h', value: changes[t.address] !== undefined || !ranked.endsWith('24h') ? changes[t.address] : (t.change24h ?? null) };
  return (
    <div>
      <h1>Market</h1>
      <Tabs id="market" label="Token lists" tabs={marketTabs} selected={tab} onSelect={select}>
        {tab !== 'king' && (
          <form class="toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
            {tab === 'all' && (
              <>
                <label>
                  Sort
                  <select value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as Sort)}>
                    <option value="newest">Newest</option>
                    <option value="trending">Trending</option>
                    <option value="volume24h">24h volume</option>
                    <option value="marketCap">Market cap</option>
                    <option value="progress">Graduation progress</option>
                    <option value="gainers1h">Gainers, 1h</option>
                    <option value="gainers24h">Gainers, 24h</option>
                    <option value="losers24h">Losers, 24h</option>
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
              </>
            )}
            <label class="grow">
              Search
              <input type="search" value={q} maxLength={100} placeholder="Name or symbol" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
            </label>
          </form>
        )}
        {tab === 'graduating' && <p class="muted">Tokens on their curve that are 80% or more of the way to graduation, closest first.</p>}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {tab === 'king' ? (
          <Kings kings={kings} loading={loading} changes={changes} flash={flash} />
        ) : (
          <>
            <ul class="grid" aria-busy={loading} data-testid="token-list">
              {tokens.map((t) => (
                <TokenCard key={t.address} t={t} flash={flash[t.address]} change={shownChange(t)} />
              ))}
            </ul>
            {!loading && tokens.length === 0 && <p class="muted">No token matches.</p>}
            {cursor && (
              <button type="button" class="btn more" disabled={loading} onClick={() => load(cursor)}>
                Load more
              </button>
            )}
          </>
        )}
      </Tabs>
    </div>
  );
}

/** TokenCard is a token in a list: its names, figures and progress, linking to its page. The
 * third figure is the change when one is known, else the day's volume. */
function TokenCard({ t, flash, change: c, testid }: { t: Token; flash?: 'up' | 'down'; change: { label: string; value: number | null | undefined }; testid?: string }) {
  return (
    <li class={`token-card ${flash ?? ''}`} data-token={t.address} data-testid={testid}>
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
          <dt>{c.label}</dt>
          <dd class={c.value === undefined || c.value === null ? '' : c.value >= 0 ? 'up' : 'down'}>{c.value !== undefined ? change(c.value) : amount(t.volume24h) + ' vol'}</dd>
        </div>
      </dl>
      {t.phase === 'graduated' ? <span class="badge">Graduated</span> : <Progress bps={t.progressBps} label={`${visible(t.symbol)} graduation progress`} />}
    </li>
  );
}

/** Kings shows the king of the hill of each pairing asset: the token on its curve with the
 * highest market cap, and since when it holds the crown. */
function Kings({ kings, loading, changes, flash }: { kings: { asset: S['Asset']; king: King | null }[] | null; loading: boolean; changes: Record<string, number | null>; flash: Record<string, 'up' | 'down'> }) {
  // The "ago" of each crown moves with the clock.
  const [, setNow] = useState(0);
  useEffect(() => {
    const h = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(h);
  }, []);
  return (
    <>
      <p class="muted">The token with the highest market cap among those still on their curve, for each pairing asset; it changes live.</p>
      <ul class="grid kings" aria-busy={loading} data-testid="kings">
        {(kings ?? []).map(({ asset, king }) => (
          <li key={assetKey(asset)} class="king" data-asset={assetKey(asset)}>
            <h2>
              Paired with <Text value={asset.symbol} />
            </h2>
            {king ? (
              <>
                <p class="crown" data-testid="king-since" data-since={king.since}>
                  <span aria-hidden="true">♔ </span>
                  King since <time dateTime={new Date(king.since * 1000).toISOString()}>{new Date(king.since * 1000).toLocaleString('en-GB')}</time> ({ago(king.since)})
                </p>
                <ul class="grid single">
                  <TokenCard t={king.token} flash={flash[king.token.address]} change={{ label: '24h', value: changes[king.token.address] }} testid="king" />
                </ul>
              </>
            ) : (
              <p class="muted">No token paired with it trades on its curve.</p>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
