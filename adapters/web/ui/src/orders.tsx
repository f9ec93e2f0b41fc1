// Standing orders: the panel that places one on a token's page (limit, stop-loss, take-profit,
// trailing-stop, DCA, TWAP, each with its fields; a refused order's reasons shown at the fields
// they name), and the account's orders with their fires, cancellable while live; each fire lists
// every transaction it sent with its kind (an approval, the trade).
import { useState } from 'preact/hooks';
import { api, ApiError, enc, type S, type Token } from './api';
import { explain } from './codes';
import { ago, amount, price, short, when } from './format';
import { session, signIn } from './session';
import { useStore } from './store';
import { Address, ErrorText, Section, Text, useAsset, usePages } from './ui';

type Kind = S['OrderRequest']['kind'];
type Order = S['Order'];

/** The fields each kind takes beside kind, token, slippage and expiresAt; size is an amount, or
 * for a sell a percent of the balance. */
const kinds: Record<Kind, { label: string; fields: Field[]; sellOnly?: boolean; help: string }> = {
  limit: { label: 'Limit', fields: ['side', 'size', 'price'], help: 'Buys when the price falls to your price or below; sells when it rises to it or above.' },
  'stop-loss': { label: 'Stop-loss', fields: ['size', 'price'], sellOnly: true, help: 'Sells when the price falls to your price or below.' },
  'take-profit': { label: 'Take-profit', fields: ['size', 'price'], sellOnly: true, help: 'Sells when the price rises to your price or above.' },
  'trailing-stop': { label: 'Trailing stop', fields: ['size', 'trail'], sellOnly: true, help: 'Sells when the price falls the trail percent below its highest since you placed it.' },
  dca: { label: 'DCA', fields: ['side', 'size', 'every', 'times'], help: 'Buys (or sells) the amount now, then every interval, the number of times you say.' },
  twap: { label: 'TWAP', fields: ['side', 'total', 'over', 'slices'], help: 'Spreads the total evenly over the duration, in equal slices, the first now.' },
};
type Field = 'side' | 'size' | 'price' | 'trail' | 'every' | 'times' | 'total' | 'over' | 'slices';

/** The body's fields whose problems the server names, each shown at its input. */
const fieldNames = ['kind', 'token', 'side', 'amount', 'percent', 'price', 'trail', 'slippage', 'every', 'times', 'total', 'over', 'slices', 'expiresAt'] as const;
type BodyField = (typeof fieldNames)[number];

/** problemsByField sorts a refusal's messages ("price: an exact decimal price …") under the
 * fields they name; the rest are general. */
function problemsByField(e: unknown): { fields: Partial<Record<BodyField, string[]>>; rest: string[] } {
  const fields: Partial<Record<BodyField, string[]>> = {};
  const rest: string[] = [];
  const list = e instanceof ApiError ? e.problems : [];
  for (const m of list) {
    const f = /^([A-Za-z]+):\s*/.exec(m)?.[1] as BodyField | undefined;
    if (f && (fieldNames as readonly string[]).includes(f)) (fields[f] ??= []).push(m.slice(m.indexOf(':') + 1).trim());
    else rest.push(m);
  }
  return { fields, rest };
}

/** num reads a number field: empty is absent, a number is sent as one, anything else is a
 * problem of that field the page names before sending. */
function num(v: string): number | undefined {
  const t = v.trim();
  if (!t) return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
}

/** OrderPanel places a standing order on token for the signed-in person's custodial wallet. */
export function OrderPanel({ token }: { token: Token }) {
  const sess = useStore(session);
  const [kind, setKind] = useState<Kind>('limit');
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [byPercent, setByPercent] = useState(false);
  const [v, setV] = useState<Record<string, string>>({ slippage: '1' });
  const [problems, setProblems] = useState<{ fields: Partial<Record<BodyField, string[]>>; rest: string[] }>({ fields: {}, rest: [] });
  const [err, setErr] = useState<unknown>(null);
  const [placed, setPlaced] = useState<Order | null>(null);
  const [busy, setBusy] = useState(false);
  const [rev, setRev] = useState(0);
  const spec = kinds[kind];
  const sell = spec.sellOnly || side === 'sell';
  const percent = sell && byPercent;

  if (!sess.user) {
    return (
      <section class="card orders-panel" aria-labelledby="orders-title">
        <h2 id="orders-title">Orders</h2>
        <p class="muted">
          Sign in to place standing orders (limit, stop-loss, take-profit, trailing stop, DCA, TWAP) that the server fires through your custodial wallet.
        </p>
        {sess.loaded && (
          <button type="button" class="btn" onClick={signIn}>
            Sign in
          </button>
        )}
      </section>
    );
  }

  const set = (k: string) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });

  async function place(e: Event) {
    e.preventDefault();
    setErr(null);
    setPlaced(null);
    const body: Record<string, unknown> = { kind, token: token.address };
    const local: Partial<Record<BodyField, string[]>> = {};
    const number = (field: BodyField, raw: string | undefined) => {
      const n = num(raw ?? '');
      if (Number.isNaN(n)) local[field] = ['a number is needed'];
      else if (n !== undefined) body[field] = n;
    };
    if (spec.fields.includes('side')) body.side = side;
    if (spec.fields.includes('size')) {
      if (percent) number('percent', v.percent);
      else if (v.amount?.trim()) body.amount = v.amount.trim();
    }
    for (const f of ['price', 'every', 'total', 'over'] as const) if (spec.fields.includes(f) && v[f]?.trim()) body[f] = v[f].trim();
    if (spec.fields.includes('trail')) number('trail', v.trail);
    if (spec.fields.includes('times')) number('times', v.times);
    if (spec.fields.includes('slices')) number('slices', v.slices);
    number('slippage', v.slippage);
    if (v.expiresAt?.trim()) {
      const t = new Date(v.expiresAt);
      if (isNaN(t.getTime())) local.expiresAt = ['a date and time is needed'];
      else body.expiresAt = t.toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    if (Object.keys(local).length) {
      setProblems({ fields: local, rest: [] });
      return;
    }
    setProblems({ fields: {}, rest: [] });
    setBusy(true);
    try {
      setPlaced(await api<Order>('/orders', { json: body }));
      setRev((n) => n + 1);
    } catch (x) {
      const p = problemsByField(x);
      if (x instanceof ApiError && x.status === 400 && Object.keys(p.fields).length) setProblems(p);
      else setErr(x);
    } finally {
      setBusy(false);
    }
  }

  // input renders one field with its label, its unit, and the problems the server named for it.
  const input = (field: BodyField, label: string, unit: string | null, hint?: string) => {
    const id = `order-${field}`;
    const errs = problems.fields[field];
    return (
      <label for={id}>
        <span>
          {label}
          {unit !== null && (
            <>
              {' '}
              (<Text value={unit} />)
            </>
          )}
        </span>
        <input
          id={id}
          inputMode={field === 'every' || field === 'over' ? 'text' : 'decimal'}
          autoComplete="off"
          value={v[field] ?? ''}
          placeholder={hint}
          onInput={set(field)}
          aria-invalid={errs ? true : undefined}
          aria-describedby={errs ? id + '-error' : undefined}
          data-testid={id}
        />
        {errs && (
          <span class="error field-error" id={id + '-error'} data-testid={id + '-error'}>
            {errs.join('; ')}
          </span>
        )}
      </label>
    );
  };

  const sizeUnit = sell ? token.symbol : token.quote.symbol;
  return (
    <section class="card orders-panel" aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      <form class="form" onSubmit={place} noValidate>
        <label for="order-kind">
          Kind
          <select id="order-kind" value={kind} data-testid="order-kind" onChange={(e) => (setKind((e.target as HTMLSelectElement).value as Kind), setProblems({ fields: {}, rest: [] }))}>
            {(Object.keys(kinds) as Kind[]).map((k) => (
              <option key={k} value={k}>
                {kinds[k].label}
              </option>
            ))}
          </select>
        </label>
        <p class="muted small">{spec.help}</p>
        {spec.fields.includes('side') && (
          <div role="group" aria-label="Order side" class="seg wide">
            {(['buy', 'sell'] as const).map((s) => (
              <button type="button" key={s} aria-pressed={side === s} class={side === s ? 'on ' + s : ''} data-testid={`order-side-${s}`} onClick={() => setSide(s)}>
                {s === 'buy' ? 'Buy' : 'Sell'}
              </button>
            ))}
          </div>
        )}
        {spec.fields.includes('side') && problems.fields.side && (
          <p class="error field-error" data-testid="order-side-error">
            {problems.fields.side.join('; ')}
          </p>
        )}
        {spec.fields.includes('size') && sell && (
          <label class="check">
            <input type="checkbox" checked={byPercent} onChange={(e) => setByPercent((e.target as HTMLInputElement).checked)} data-testid="order-by-percent" /> A percent of my balance at fire time
          </label>
        )}
        {spec.fields.includes('size') && (percent ? input('percent', 'Percent of the balance', '%') : input('amount', kind === 'dca' ? 'Amount per fire' : 'Amount', sizeUnit, '0.0'))}
        {spec.fields.includes('total') && input('total', 'Total', sizeUnit, '0.0')}
        {spec.fields.includes('price') && input('price', 'Trigger price', `${token.quote.symbol} per token`, '0.000000004')}
        {spec.fields.includes('trail') && input('trail', 'Trail', '%', '10')}
        {spec.fields.includes('every') && input('every', 'Every', null, '1h, 30m')}
        {spec.fields.includes('times') && input('times', 'Times', null, '5')}
        {spec.fields.includes('over') && input('over', 'Over', null, '10m, 2h')}
        {spec.fields.includes('slices') && input('slices', 'Slices', null, '5')}
        {input('slippage', 'Slippage', '%')}
        <label for="order-expiresAt">
          Expires (optional)
          <input id="order-expiresAt" type="datetime-local" value={v.expiresAt ?? ''} onInput={set('expiresAt')} aria-invalid={problems.fields.expiresAt ? true : undefined} data-testid="order-expiresAt" />
          {problems.fields.expiresAt && (
            <span class="error field-error" data-testid="order-expiresAt-error">
              {problems.fields.expiresAt.join('; ')}
            </span>
          )}
        </label>
        {[...problems.rest, ...(problems.fields.kind ?? []), ...(problems.fields.token ?? [])].map((m) => (
          <p class="error" key={m}>
            <Text value={m} />
          </p>
        ))}
        <button type="submit" class={`btn btn-primary ${sell ? 'sell' : 'buy'}`} disabled={busy} data-testid="place-order">
          Place {kinds[kind].label.toLowerCase()} order
        </button>
      </form>
      <p class="status" role="status" data-testid="order-status">
        {placed && (
          <>
            Placed: order <code>{placed.id}</code>, {placed.state}. See it under <a href="#/account">Account › Orders</a>.
          </>
        )}
      </p>
      {Object.keys(problems.fields).length > 0 && (
        <p class="error" role="alert" data-testid="order-invalid">
          The server refused the order: see the reasons at the fields above.
        </p>
      )}
      <ErrorText error={err} />
      <TokenOrders token={token.address} rev={rev} />
    </section>
  );
}

const live = (o: Order) => o.state === 'open' || o.state === 'triggered' || o.state === 'sent';

/** what says an order's terms in words. */
function terms(o: Order): string {
  const size = o.percent !== null ? `${o.percent}% of the balance` : o.amount ?? '';
  switch (o.kind) {
    case 'limit':
      return `${o.side} ${size} at ${o.price} or better`;
    case 'stop-loss':
      return `sell ${size} if the price falls to ${o.price}`;
    case 'take-profit':
      return `sell ${size} if the price rises to ${o.price}`;
    case 'trailing-stop':
      return `sell ${size} if the price falls ${o.trail}% below its high${o.high ? ` (high so far ${o.high})` : ''}`;
    case 'dca':
      return `${o.side} ${size} every ${o.every}, ${o.times} times`;
    case 'twap':
      return `${o.side} ${size} in all over ${o.over}, in ${o.slices} slices`;
  }
}

/** useOrders reads the account's orders matching filter, a page at a time, and cancels one. */
function useOrders(filter: Record<string, string>, deps: unknown[]) {
  const [note, setNote] = useState('');
  const pages = usePages<S['OrderList'], Order>(
    (cursor) => {
      const q = new URLSearchParams({ limit: '20', ...filter });
      if (cursor) q.set('cursor', cursor);
      return `/orders?${q}`;
    },
    (p) => p.orders,
    deps,
  );
  async function cancel(o: Order) {
    pages.setError(null);
    setNote('');
    try {
      const c = await api<Order>(`/orders/${enc(o.id)}`, { method: 'DELETE' });
      pages.setRows((prev) => prev.map((x) => (x.id === c.id ? c : x)));
      setNote(`Order ${c.id} cancelled: nothing more of it fires.`);
    } catch (x) {
      pages.setError(x);
    }
  }
  return { ...pages, note, cancel };
}

/** TokenOrders lists the person's live orders on one token, under its order panel. */
function TokenOrders({ token, rev }: { token: string; rev: number }) {
  const { rows, error, cancel, note } = useOrders({ token }, [token, rev]);
  const shown = rows.filter(live);
  if (!shown.length && !error && !note) return null;
  return (
    <div data-testid="token-orders">
      <h3>Your live orders here</h3>
      <ul class="orders">
        {shown.map((o) => (
          <li key={o.id} data-order={o.id} data-state={o.state} class="row between">
            <span>
              <strong>{kinds[o.kind].label}</strong>: {terms(o)} · {o.state}
            </span>
            <button type="button" class="btn btn-small" data-testid="order-cancel" onClick={() => cancel(o)}>
              Cancel
            </button>
          </li>
        ))}
      </ul>
      <p class="status" role="status">
        {note}
      </p>
      <ErrorText error={error} />
    </div>
  );
}

/** AccountOrders lists the account's orders, newest first, with their fires; live ones cancel. */
export function AccountOrders() {
  const [state, setState] = useState('');
  const [rev, setRev] = useState(0);
  const { rows, error: err, more, note, cancel } = useOrders(state ? { state } : {}, [state, rev]);
  return (
    <Section title="Orders" id="orders-list-title">
      <div class="toolbar">
        <label class="grow">
          State
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)} data-testid="orders-state">
            <option value="">all</option>
            {['open', 'triggered', 'sent', 'filled', 'failed', 'expired', 'cancelled'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="btn" onClick={() => setRev(rev + 1)} data-testid="orders-reload">
          Reload
        </button>
      </div>
      <p class="status" role="status" data-testid="orders-note">
        {note}
      </p>
      <ErrorText error={err} />
      {rows.length === 0 && !err && <p class="muted">No orders. Place one from a token's page.</p>}
      <ul class="orders" data-testid="orders">
        {rows.map((o) => (
          <li key={o.id} data-order={o.id} data-state={o.state}>
            <div class="row between">
              <p>
                <strong>{kinds[o.kind].label}</strong> on <TokenLink address={o.token} />: {terms(o)}
              </p>
              {live(o) && (
                <button type="button" class="btn btn-small" data-testid="order-cancel" onClick={() => cancel(o)}>
                  Cancel
                </button>
              )}
            </div>
            <p class="muted">
              <span data-testid="order-state">{o.state}</span> · {o.fired} of {o.count} fired · slippage {o.slippage}% · placed {ago(o.createdAt)}
              {o.nextAt !== null && ` · next fire ${when(o.nextAt)}`}
              {o.expiresAt !== null && ` · expires ${when(o.expiresAt)}`}
            </p>
            {o.reason && (
              <p class="error">
                <Text value={o.reason} />
              </p>
            )}
            {o.fires.length > 0 && <Fires order={o} />}
          </li>
        ))}
      </ul>
      {more && (
        <button type="button" class="btn more" data-testid="orders-more" onClick={more}>
          Older
        </button>
      )}
    </Section>
  );
}

/** TokenLink links a token's page by its symbol (a stranger's string, shown as text). */
function TokenLink({ address }: { address: string }) {
  const info = useAsset(address);
  return (
    <a href={`#/token/${address}`} title={address}>
      {info ? <Text value={info.symbol} /> : short(address)}
    </a>
  );
}

function Fires({ order }: { order: Order }) {
  const info = useAsset(order.token);
  const tokens = info?.symbol ?? 'tokens';
  const quote = info?.quote ?? 'of the pairing asset';
  const [spent, got] = order.side === 'buy' ? [quote, tokens] : [tokens, quote];
  const exact = (v: string | null, unit: string) =>
    v === null ? (
      '—'
    ) : (
      <span title={v}>
        {amount(v, 6)} <Text value={unit} />
      </span>
    );
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`Fires of order ${order.id}`}>
      <table data-testid="fires">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">State</th>
            <th scope="col">Triggered at</th>
            <th scope="col">Transactions</th>
            <th scope="col">Spent</th>
            <th scope="col">Got</th>
          </tr>
        </thead>
        <tbody>
          {order.fires.map((f) => (
            <tr key={f.id} data-fire={f.id}>
              <td>{f.n + 1}</td>
              <td>
                {f.state}
                {f.code && (
                  <span class="error">
                    {' '}
                    {explain(f.code) ?? ''} <code>{f.code}</code>
                  </span>
                )}
                {f.error && (
                  <span class="muted">
                    {' '}
                    <Text value={f.error} />
                  </span>
                )}
              </td>
              <td>
                {f.price !== null ? (
                  <span title={f.price} data-price={f.price}>
                    {price(Number(f.price))}
                    {f.block ? ` (block ${f.block})` : ''}
                  </span>
                ) : (
                  'on the clock'
                )}
              </td>
              <td data-testid="fire-txs">
                {f.transactions.length === 0
                  ? '—'
                  : f.transactions.map((tx, i) => (
                      <span key={tx.hash} data-kind={tx.kind} data-hash={tx.hash}>
                        {i > 0 && ', '}
                        {tx.kind} <Address value={tx.hash} />
                      </span>
                    ))}
              </td>
              <td data-amount={f.amountIn ?? ''}>{exact(f.amountIn, spent)}</td>
              <td data-amount={f.amountOut ?? ''}>{exact(f.amountOut, got)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
