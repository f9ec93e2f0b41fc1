// Small parts every page uses. Every string a stranger chose (names, symbols, descriptions,
// links) is rendered as text by Preact, never as HTML, through Text (or visible where only plain
// text fits), so its invisible characters show; links pass safeLink.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, enc, getConfig, type S, type Token } from './api';
import { codeOf } from './codes';
import { ipfsCID, percentBps, reveal, short, visible, whole } from './format';
import { pending, session, signIn, simulate } from './session';
import { useStore } from './store';
import { account, connect, errorText, provider } from './wallet';

/** Text shows a stranger's string: each hidden character (a bidi override, a zero-width space, a
 * control) as its escape, \u202e, marked so it stands out. */
export function Text({ value }: { value: string }) {
  const parts = reveal(value);
  if (parts.length === 1) return <>{value}</>;
  return (
    <>
      {parts.map((p, i) =>
        i % 2 ? (
          <span key={i} class="hidden-char" title={`An invisible character (U+${p.slice(2).toUpperCase()}), shown as its code`}>
            {p}
          </span>
        ) : (
          p
        ),
      )}
    </>
  );
}

/** namesakeText explains a token whose name or symbol reads like another's, or is null. */
function namesakeText(t: Pick<Token, 'sameName' | 'sameSymbol'>): string | null {
  const others = (n: number, what: string) => (n === 1 ? `1 other token has this ${what}` : `${n} other tokens have this ${what}`);
  const parts = [t.sameSymbol ? others(t.sameSymbol, 'symbol') : '', t.sameName ? others(t.sameName, 'name') : ''].filter(Boolean);
  if (parts.length === 0) return null;
  return `Look-alike: ${parts.join(' and ')}, ignoring case and invisible characters. Only the address says which token this is.`;
}

/** NamesakeMark warns, in a token's card, that its name or symbol is not its alone. */
export function NamesakeMark({ token }: { token: Pick<Token, 'sameName' | 'sameSymbol'> }) {
  const text = namesakeText(token);
  if (!text) return null;
  return (
    <span class="namesake" role="img" aria-label={text} title={text} data-testid="namesake">
      ⚠
    </span>
  );
}

/** NamesakeNotice is the same warning in full, on a token's own page. */
export function NamesakeNotice({ token }: { token: Pick<Token, 'sameName' | 'sameSymbol'> }) {
  const text = namesakeText(token);
  if (!text) return null;
  return (
    <p class="notice warn" role="note" data-testid="namesake">
      <span aria-hidden="true">⚠ </span>
      {text}
    </p>
  );
}

/** Logo is the token's image, asked for only when its URI is one whose document this server may
 * hold (ipfs://): any other token has none, and shows its initials without a request. */
export function Logo({ address, symbol, uri, size = 40 }: { address: string; symbol: string; uri: string; size?: number }) {
  const [failed, setFailed] = useState(false);
  if (failed || !ipfsCID(uri)) {
    return (
      <span class="logo logo-fallback" style={{ width: `${size}px`, height: `${size}px`, fontSize: `${size / 2.6}px` }} aria-hidden="true">
        {visible(symbol).slice(0, 2)}
      </span>
    );
  }
  return <img class="logo" src={`/tokens/${enc(address)}/logo`} width={size} height={size} alt="" loading="lazy" onError={() => setFailed(true)} />;
}

export function Progress({ bps, label }: { bps: number; label: string }) {
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.min(100, bps / 100)}>
      <div class="progress-bar" style={{ width: `${Math.min(100, bps / 100)}%` }} />
      <span class="progress-text">{percentBps(bps)}</span>
    </div>
  );
}

export function Address({ value }: { value: string }) {
  return (
    <code class="addr" title={value}>
      {short(value)}
    </code>
  );
}

export function Copy({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="btn btn-small"
      onClick={async () => {
        await navigator.clipboard?.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** WalletButton connects the browser wallet, or says there is none. */
export function WalletButton() {
  const acc = useStore(account);
  const [err, setErr] = useState<unknown>(null);
  if (acc) {
    return (
      <span class="wallet" data-testid="wallet-account">
        <span class="dot" aria-hidden="true" /> {short(acc)}
      </span>
    );
  }
  if (!provider()) return null;
  return (
    <button type="button" class="btn" onClick={() => connect().catch(setErr)} title={err ? errorText(err) : undefined}>
      Connect wallet
    </button>
  );
}

export function SessionButton() {
  const s = useStore(session);
  if (!s.loaded) return null;
  if (s.user)
    return (
      <a href="#/account" class="nav-link">
        {s.user.handle ? <Text value={s.user.handle} /> : short(s.user.wallet)}
      </a>
    );
  return (
    <button type="button" class="btn btn-ghost" onClick={signIn}>
      Sign in
    </button>
  );
}

/** ConfirmDialog shows a custodial send before anything is signed: from, to, value, data, and
 * the simulation's outcome. The send can be confirmed only once its simulation succeeded. */
export function ConfirmDialog() {
  const p = useStore(pending);
  const [ref, setRef] = useState<HTMLDialogElement | null>(null);
  const [sim, setSim] = useState<{ ok?: S['Simulation']; err?: unknown } | null>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!ref) return;
    if (p && !ref.open) ref.showModal();
    if (!p && ref.open) ref.close();
  }, [p, ref]);
  useEffect(() => {
    setSim(null);
    if (!p) return;
    let live = true;
    simulate(p.tx).then(
      (ok) => live && setSim({ ok }),
      (err) => live && setSim({ err }),
    );
    return () => {
      live = false;
    };
  }, [p, n]);
  const ready = !!sim?.ok?.success;
  return (
    <dialog ref={setRef} class="dialog" aria-labelledby="confirm-title" onCancel={() => p?.resolve(false)}>
      {p && (
        <form method="dialog" onSubmit={(e) => e.preventDefault()}>
          <h2 id="confirm-title">Sign with your custodial wallet?</h2>
          <p>
            <Text value={p.what} />
          </p>
          <dl class="kv">
            <dt>From</dt>
            <dd>
              <code>{p.from}</code>
            </dd>
            <dt>To</dt>
            <dd>
              <code>{p.tx.to}</code>
            </dd>
            <dt>Value</dt>
            <dd>{p.tx.value} wei</dd>
            <dt>Chain</dt>
            <dd>{p.tx.chainId}</dd>
            <dt>Call data</dt>
            <dd>
              <code class="data">{p.tx.data.length > 74 ? p.tx.data.slice(0, 74) + '…' : p.tx.data}</code>
            </dd>
          </dl>
          <div class="simulation" aria-live="polite" data-testid="simulation">
            <h3>What it does to your wallet</h3>
            {!sim && <p class="muted">Simulating against the chain…</p>}
            {sim?.ok && <SimulationResult sim={sim.ok} value={p.tx.value} />}
            {sim?.err ? (
              <div class="notice warn" data-testid="sim-refusal" data-code={codeOf(sim.err) ?? ''}>
                <p>
                  <strong>Refused before signing.</strong> {errorText(sim.err)}
                </p>
                <button type="button" class="btn btn-small" onClick={() => setN(n + 1)}>
                  Simulate again
                </button>
              </div>
            ) : null}
          </div>
          <p class="muted">The server signs this with your custodial wallet and broadcasts it.</p>
          <div class="row">
            <button type="button" class="btn" onClick={() => p.resolve(false)}>
              Cancel
            </button>
            <button type="button" class="btn btn-primary" data-testid="confirm-custodial" disabled={!ready} onClick={() => p.resolve(true)}>
              Sign and send
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

export interface AssetInfo {
  symbol: string;
  decimals: number | null;
  /** quote is a token's pairing asset's symbol. */
  quote?: string;
}
const assets = new Map<string, Promise<AssetInfo>>();

/** assetInfo names a balance change's asset ("ETH", or a pairing asset's or a token's address)
 * with its symbol and decimals, as the server knows them. */
export function assetInfo(asset: string): Promise<AssetInfo> {
  const key = asset.toLowerCase();
  let p = assets.get(key);
  if (!p) {
    p = (async () => {
      if (asset === 'ETH') return { symbol: 'ETH', decimals: 18 };
      const cfg = await getConfig();
      const q = cfg.quoteAssets.find((a) => a.address?.toLowerCase() === key);
      if (q) return { symbol: q.symbol, decimals: q.decimals };
      try {
        const t = await api<Token>(`/tokens/${enc(asset)}`);
        return { symbol: t.symbol, decimals: t.decimals, quote: t.quote.symbol };
      } catch {
        return { symbol: short(asset), decimals: null };
      }
    })();
    assets.set(key, p);
  }
  return p;
}

/** useAsset is assetInfo as a hook: null until known. */
export function useAsset(asset: string): AssetInfo | null {
  const [info, setInfo] = useState<AssetInfo | null>(null);
  useEffect(() => {
    assetInfo(asset).then(setInfo, () => setInfo({ symbol: short(asset), decimals: null }));
  }, [asset]);
  return info;
}

function Change({ c }: { c: S['BalanceChange'] }) {
  const info = useAsset(c.asset);
  const d = BigInt(c.delta);
  const out = d < 0n;
  const abs = out ? -d : d;
  const shown = info?.decimals != null ? whole(abs, info.decimals) : `${abs} base units`;
  return (
    <li data-testid="sim-change" data-asset={c.asset} data-delta={c.delta} class={out ? 'down' : 'up'}>
      {out ? 'Out: ' : 'In: '}
      {shown} {info ? <Text value={info.symbol} /> : '…'}
    </li>
  );
}

/** SimulationResult shows a successful simulation: the wallet's balance changes, pairing asset
 * out and tokens in, and the gas it takes. */
function SimulationResult({ sim, value }: { sim: S['Simulation']; value: string }) {
  if (!sim.success) return <p class="error">The simulation did not succeed: nothing would be signed.</p>;
  const changes = sim.balanceChanges.length ? sim.balanceChanges : BigInt(value || '0') > 0n ? [{ asset: 'ETH', delta: '-' + value }] : [];
  return (
    <>
      {changes.length ? (
        <ul class="changes">
          {changes.map((c) => (
            <Change key={c.asset} c={c} />
          ))}
        </ul>
      ) : (
        <p class="muted">No balance of yours changes (beside the gas).</p>
      )}
      <p data-testid="sim-gas">
        Gas: about {Number(sim.gas).toLocaleString('en-US')} units, paid in ETH on top.
      </p>
      {!sim.complete && <p class="muted">The chain's node could only run a plain call: ETH leaves with the value, and token movements are not known.</p>}
    </>
  );
}

export function useAsync<T>(f: () => Promise<T>, deps: unknown[]): { data?: T; error?: unknown; reload(): void } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    f().then(
      (data) => live && setState({ data }),
      (error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [...deps, n]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

/** usePages reads a cursor-paged list: the first page whenever deps change, the next one on
 * more(); path is the request for a cursor (null: the first page), items picks the page's rows. */
export function usePages<P extends { nextCursor: string | null }, T>(path: (cursor: string | null) => string, items: (page: P) => T[], deps: unknown[]) {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function load(cursor: string | null) {
    setError(null);
    try {
      const page = await api<P>(path(cursor));
      setRows((prev) => (cursor ? [...prev, ...items(page)] : items(page)));
      setNext(page.nextCursor);
    } catch (x) {
      setError(x);
    }
  }
  useEffect(() => {
    load(null);
  }, deps);
  return { rows, setRows, error, setError, more: next ? () => load(next) : null };
}

/** Attribution credits the charting library, as its licence asks, under every chart. */
export function Attribution() {
  return (
    <p class="attribution">
      Charts by{' '}
      <a href="https://www.tradingview.com/" rel="noopener noreferrer" target="_blank">
        TradingView
      </a>
    </p>
  );
}
