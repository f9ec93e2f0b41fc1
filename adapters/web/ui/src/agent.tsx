// The agent terminal: a conversation over POST /agent/prompt, read as a stream; text shown as
// its pieces arrive, each composed transaction a card confirmed in the wallet, each proposed
// order a card placed only when the person presses Place; memory shown and forgettable.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, enc, type S } from './api';
import { whole } from './format';
import { session, sendTx, signIn, via, type Via } from './session';
import { useStore } from './store';
import { ErrorText, Section, Text, useAsync } from './ui';
import { account, errorText } from './wallet';

interface Msg {
  role: 'you' | 'agent';
  text: string;
  txs: S['AgentTransaction'][];
  orders?: S['AgentOrderProposal'][];
  error?: string;
  done?: boolean;
}

/** events reads a text/event-stream body, yielding each event's name and data. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.search(/\r?\n\r?\n/)) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + (buf[i] === '\r' ? 4 : 2));
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const c = line.indexOf(':');
        const field = c < 0 ? line : line.slice(0, c);
        const v = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
        if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

export function Agent() {
  const s = useStore(session);
  if (!s.loaded) return <p class="muted">Loading…</p>;
  if (!s.user) {
    return (
      <div class="narrow">
        <h1>Agent</h1>
        <p>Sign in to talk to the agent: it prices, composes trades and launches, and remembers your preferences.</p>
        <button type="button" class="btn btn-primary" onClick={signIn}>
          Sign in
        </button>
      </div>
    );
  }
  return <Terminal />;
}

function Terminal() {
  const [msgs, setMsgs] = useState<Msg[]>([]);
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const thread = useRef<string | undefined>(undefined);
  const memory = useAsync(() => api<S['Memories']>('/agent/memory'), []);
  const log = useRef<HTMLDivElement>(null);

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [msgs]);

  function patch(f: (m: Msg) => Msg) {
    setMsgs((all) => [...all.slice(0, -1), f(all[all.length - 1])]);
  }

  async function ask(e: Event) {
    e.preventDefault();
    const p = prompt.trim();
    if (!p || busy) return;
    setPrompt('');
    setBusy(true);
    setMsgs((all) => [...all, { role: 'you', text: p, txs: [] }, { role: 'agent', text: '', txs: [] }]);
    try {
      const body: Record<string, string> = { prompt: p };
      if (thread.current) body.threadId = thread.current;
      const r = await fetch('/agent/prompt', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(body), credentials: 'same-origin' });
      if (!r.ok || !r.body || !(r.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
        const j = await r.json().catch(() => ({}));
        throw new ApiError(r.status, Array.isArray(j.message) ? j.message.join('; ') : (j.message ?? `the server answered ${r.status}`));
      }
      for await (const ev of events(r.body)) {
        const d = JSON.parse(ev.data);
        if (ev.event === 'text_delta') patch((m) => ({ ...m, text: m.text + (d as S['TextDelta']).text }));
        else if (ev.event === 'transaction') patch((m) => ({ ...m, txs: [...m.txs, d as S['AgentTransaction']] }));
        else if (ev.event === 'order') patch((m) => ({ ...m, orders: [...(m.orders ?? []), d as S['AgentOrderProposal']] }));
        else if (ev.event === 'done') {
          thread.current = (d as S['Done']).threadId;
          patch((m) => ({ ...m, done: true }));
        } else if (ev.event === 'error') patch((m) => ({ ...m, error: (d as S['TurnError']).message }));
      }
    } catch (x) {
      patch((m) => ({ ...m, error: errorText(x) }));
    } finally {
      setBusy(false);
      memory.reload();
    }
  }

  async function forget(key: string) {
    await api(`/agent/memory/${enc(key)}`, { method: 'DELETE' }).catch(() => undefined);
    memory.reload();
  }

  return (
    <div class="agent">
      <h1>Agent</h1>
      <div class="agent-grid">
        <section class="card terminal" aria-label="Conversation">
          <div class="log" ref={log} role="log" aria-live="polite" data-testid="agent-log">
            {msgs.length === 0 && <p class="muted">Try “price 0.01 ETH of DETH”, “buy 0.01 ETH of DETH” or “remember my slippage is 0.5%”.</p>}
            {msgs.map((m, i) => (
              <div key={i} class={`msg ${m.role}`}>
                <span class="who">{m.role === 'you' ? 'you' : 'agent'}</span>
                <p class="text">
                  <Text value={m.text || (m.role === 'agent' && !m.error && !m.done ? '…' : '')} />
                </p>
                {m.txs.map((t, j) => (
                  <TxCard key={j} tx={t} />
                ))}
                {m.orders?.map((o, j) => (
                  <OrderCard key={j} proposal={o} />
                ))}
                {m.error && (
                  <p class="error" role="alert">
                    {m.error}
                  </p>
                )}
              </div>
            ))}
          </div>
          <form class="prompt" onSubmit={ask}>
            <label for="prompt" class="sr-only">
              Prompt
            </label>
            <input id="prompt" autoComplete="off" maxLength={4000} value={prompt} placeholder="Ask the agent…" onInput={(e) => setPrompt((e.target as HTMLInputElement).value)} data-testid="prompt" />
            <button type="submit" class="btn btn-primary" disabled={busy}>
              Send
            </button>
          </form>
        </section>
        <Section title="Memory">
          <ErrorText error={memory.error} />
          {memory.data?.memories.length === 0 && <p class="muted">Nothing remembered.</p>}
          <ul class="memory" data-testid="memory">
            {memory.data?.memories.map((m) => (
              <li key={m.key}>
                <span>
                  <strong>{m.key}</strong>: {m.value}
                </span>
                <button type="button" class="btn btn-small" onClick={() => forget(m.key)} aria-label={`Forget ${m.key}`}>
                  Forget
                </button>
              </li>
            ))}
          </ul>
        </Section>
      </div>
    </div>
  );
}

/** TxCard is one composed transaction: what it does, where it goes, and its confirmation. The
 * browser wallet confirms it when it is the wallet the agent composed for; otherwise the
 * custodial wallet does, after its confirmation dialog. */
function TxCard({ tx }: { tx: S['AgentTransaction'] }) {
  const acc = useStore(account);
  const [state, setState] = useState('');
  const [err, setErr] = useState<unknown>(null);
  const own = !!acc && !!tx.from && acc.toLowerCase() === tx.from.toLowerCase();
  const how: Via | null = own ? 'wallet' : via() === null ? null : 'custodial';
  async function confirm(h: Via) {
    setErr(null);
    try {
      if (tx.approval) {
        setState('Approve first…');
        await sendTx(tx.approval, `Approve for ${tx.description}`, h, true);
      }
      setState(h === 'wallet' ? 'Confirm in your wallet…' : 'Sending…');
      const hash = await sendTx(tx, tx.description, h);
      setState(`Sent: ${hash}`);
    } catch (x) {
      setErr(x);
      setState('');
    }
  }
  return (
    <div class="tx-card" data-testid="tx-card">
      <p class="tx-kind">{tx.kind.replace('_', ' ')}</p>
      <p>
        <Text value={tx.description} />
      </p>
      <dl class="kv small">
        <dt>To</dt>
        <dd>
          <code>{tx.to}</code>
        </dd>
        <dt>Value</dt>
        <dd>{whole(BigInt(tx.value), 18)} ETH</dd>
        {tx.from && (
          <>
            <dt>From</dt>
            <dd>
              <code>{tx.from}</code>
            </dd>
          </>
        )}
      </dl>
      {how && !state.startsWith('Sent') && (
        <button type="button" class="btn btn-primary" data-testid="tx-confirm" onClick={() => confirm(how)}>
          {how === 'wallet' ? 'Confirm in wallet' : 'Confirm with my custodial wallet…'}
        </button>
      )}
      <p class="status" aria-live="polite" data-testid="tx-state">
        {state}
      </p>
      <ErrorText error={err} />
    </div>
  );
}

/** OrderCard is one proposed standing order: what it does and the body POST /orders takes. The
 * agent armed nothing; Place posts the body as it came, the person's own act. */
function OrderCard({ proposal }: { proposal: S['AgentOrderProposal'] }) {
  const [placed, setPlaced] = useState<S['Order'] | null>(null);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  async function place() {
    setErr(null);
    setBusy(true);
    try {
      setPlaced(await api<S['Order']>('/orders', { json: proposal.order }));
    } catch (x) {
      setErr(x);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="tx-card" data-testid="order-card">
      <p class="tx-kind">{proposal.kind} order, proposed</p>
      <p>
        <Text value={proposal.description} />
      </p>
      <dl class="kv small">
        {Object.entries(proposal.order).flatMap(([k, v]) => [
          <dt key={`${k}-name`}>{k}</dt>,
          <dd key={`${k}-value`}>
            <code>{String(v)}</code>
          </dd>,
        ])}
      </dl>
      {!placed && (
        <button type="button" class="btn btn-primary" data-testid="order-place" disabled={busy} onClick={place}>
          Place order
        </button>
      )}
      <p class="status" aria-live="polite" data-testid="order-state">
        {placed ? `Placed: ${placed.id}` : 'Nothing is armed until you place it.'}
      </p>
      <ErrorText error={err} />
    </div>
  );
}
