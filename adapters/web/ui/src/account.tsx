// Account: sign in and out, wallet safety (the settings guarding the custodial wallet, the pause
// switch, the activity log), standing orders with their fires, API keys (created with their options, the raw key shown once,
// listed, revoked), webhooks (created with their signing secret shown once, tested, deleted,
// with their delivery log) and the custodial wallet's key export behind a warning.
import { useState } from 'preact/hooks';
import { api, ApiError, enc, type S } from './api';
import { ago } from './format';
import { AccountOrders } from './orders';
import { WalletSafety } from './safety';
import { session, signIn, signOut } from './session';
import { useStore } from './store';
import { Copy, ErrorText, Section, Text, useAsync } from './ui';

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

export function Account() {
  const s = useStore(session);
  if (!s.loaded) return <p class="muted">Loading…</p>;
  if (!s.user) {
    return (
      <div class="narrow">
        <h1>Account</h1>
        <p>Sign in to create API keys, use your custodial wallet and talk to the agent.</p>
        <button type="button" class="btn btn-primary" onClick={signIn} data-testid="sign-in">
          Sign in
        </button>
      </div>
    );
  }
  const u = s.user;
  return (
    <div class="narrow">
      <h1>Account</h1>
      <Section title="You">
        <dl class="kv">
          <dt>Handle</dt>
          <dd data-testid="handle">
            <Text value={u.handle} />
          </dd>
          <dt>Custodial wallet</dt>
          <dd>
            <code>{u.wallet}</code> <Copy text={u.wallet} />
          </dd>
          <dt>Tier</dt>
          <dd>{u.tier}</dd>
        </dl>
        <button type="button" class="btn" onClick={() => signOut()} data-testid="sign-out">
          Sign out
        </button>
      </Section>
      <WalletSafety />
      <AccountOrders />
      <Keys />
      <Webhooks />
      <Export />
    </div>
  );
}

function Keys() {
  const keys = useAsync(() => api<S['KeyList']>('/api-keys'), []);
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [ips, setIps] = useState('');
  const [recipients, setRecipients] = useState('');
  const [created, setCreated] = useState<S['NewKey'] | null>(null);
  const [err, setErr] = useState<unknown>(null);

  async function create(e: Event) {
    e.preventDefault();
    setErr(null);
    try {
      const k = await api<S['NewKey']>('/api-keys', { json: { name: name.trim(), readOnly, allowedIps: list(ips), allowedRecipients: list(recipients) } });
      setCreated(k);
      setName('');
      keys.reload();
    } catch (x) {
      setErr(x);
    }
  }
  async function revoke(id: string) {
    setErr(null);
    try {
      await api(`/api-keys/${enc(id)}`, { method: 'DELETE' });
      keys.reload();
    } catch (x) {
      setErr(x);
    }
  }
  return (
    <Section title="API keys">
      {created && (
        <div class="notice" role="status">
          <p>
            Your new key, shown this once: <code data-testid="new-key">{created.key}</code> <Copy text={created.key} />
          </p>
          <p class="muted">The server keeps only its hash. Store it now.</p>
          <button type="button" class="btn btn-small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <form class="form" onSubmit={create}>
        <label>
          Name
          <input maxLength={64} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} data-testid="key-name" />
        </label>
        <label class="check">
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly((e.target as HTMLInputElement).checked)} /> Read-only (cannot sign)
        </label>
        <label>
          Allowed IPs (IPv4 or CIDR, comma separated; empty for any)
          <input value={ips} onInput={(e) => setIps((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Allowed recipients (addresses, comma separated; empty for any)
          <input value={recipients} onInput={(e) => setRecipients((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="btn btn-primary" data-testid="create-key">
          Create key
        </button>
      </form>
      <ErrorText error={err || keys.error} />
      <div class="table-wrap">
        <table data-testid="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Options</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.keys.map((k) => (
              <tr key={k.id} data-key={k.id}>
                <td>{k.name ? <Text value={k.name} /> : '—'}</td>
                <td>
                  <code>{k.hint}</code>
                </td>
                <td>
                  {[k.readOnly ? 'read-only' : 'read-write', k.allowedIps.length ? `IPs ${k.allowedIps.join(', ')}` : '', k.allowedRecipients.length ? `${k.allowedRecipients.length} recipients` : '']
                    .filter(Boolean)
                    .join(' · ')}
                </td>
                <td>{k.lastUsedAt ? ago(k.lastUsedAt) : 'never'}</td>
                <td>
                  {k.revokedAt ? (
                    <span class="muted" data-testid="revoked">
                      revoked
                    </span>
                  ) : (
                    <button type="button" class="btn btn-small" data-testid="revoke" onClick={() => revoke(k.id)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

function Export() {
  const [armed, setArmed] = useState(false);
  const [key, setKey] = useState<S['ExportedKey'] | null>(null);
  const [stale, setStale] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  async function exportKey() {
    setErr(null);
    try {
      setKey(await api<S['ExportedKey']>('/wallet/export-key', { json: {} }));
    } catch (x) {
      if (x instanceof ApiError && x.status === 403 && /sign in again/.test(x.message)) setStale(true);
      else setErr(x);
    }
  }
  return (
    <Section title="Export the custodial wallet's key">
      {key ? (
        <div class="notice warn" role="status">
          <p>
            <strong>{key.warning}</strong>
          </p>
          <p>
            <code class="data">{key.privateKey}</code> <Copy text={key.privateKey} />
          </p>
          <button type="button" class="btn btn-small" onClick={() => (setKey(null), setArmed(false))}>
            Hide
          </button>
        </div>
      ) : stale ? (
        <div class="notice">
          <p>Exporting needs a sign-in within the last 15 minutes.</p>
          <button type="button" class="btn btn-primary" onClick={signIn}>
            Sign in again
          </button>
        </div>
      ) : armed ? (
        <div class="notice warn">
          <p>Anyone who sees this key controls your custodial wallet and everything in it. Make sure nobody is watching your screen.</p>
          <div class="row">
            <button type="button" class="btn" onClick={() => setArmed(false)}>
              Cancel
            </button>
            <button type="button" class="btn btn-danger" onClick={exportKey} data-testid="export-confirm">
              Show my private key
            </button>
          </div>
        </div>
      ) : (
        <button type="button" class="btn" onClick={() => setArmed(true)} data-testid="export">
          Export private key…
        </button>
      )}
      <ErrorText error={err} />
    </Section>
  );
}

const webhookTypes = ['trade', 'token.launched', 'token.graduated', 'fees.claimable', 'wallet.transaction', 'job.completed', 'job.failed', 'order.triggered', 'order.sent', 'order.filled', 'order.failed', 'order.expired', 'order.cancelled', 'settings.changed', 'webhook.disabled'];

function Webhooks() {
  const hooks = useAsync(() => api<S['WebhookList']>('/webhooks'), []);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>(['wallet.transaction', 'job.completed', 'job.failed']);
  const [created, setCreated] = useState<S['WebhookSecret'] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [err, setErr] = useState<unknown>(null);

  async function create(e: Event) {
    e.preventDefault();
    setErr(null);
    try {
      const h = await api<S['WebhookSecret']>('/webhooks', { json: { url: url.trim(), types } });
      setCreated(h);
      setUrl('');
      hooks.reload();
    } catch (x) {
      setErr(x);
    }
  }
  async function act(path: string, method = 'POST') {
    setErr(null);
    try {
      await api(path, { method });
      hooks.reload();
    } catch (x) {
      setErr(x);
    }
  }
  const toggle = (t: string) => setTypes(types.includes(t) ? types.filter((x) => x !== t) : [...types, t]);
  return (
    <Section title="Webhooks">
      {created && (
        <div class="notice" role="status">
          <p>
            Its signing secret, shown this once: <code data-testid="webhook-secret">{created.secret}</code> <Copy text={created.secret} />
          </p>
          <p class="muted">Verify every delivery with it (Standard Webhooks). Store it now.</p>
          <button type="button" class="btn btn-small" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <form class="form" onSubmit={create}>
        <label>
          URL (https)
          <input type="url" required value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} data-testid="webhook-url" />
        </label>
        <fieldset>
          <legend>Events</legend>
          {webhookTypes.map((t) => (
            <label class="check" key={t}>
              <input type="checkbox" checked={types.includes(t)} onChange={() => toggle(t)} /> {t}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="btn btn-primary" data-testid="create-webhook">
          Add webhook
        </button>
      </form>
      <ErrorText error={err || hooks.error} />
      <div class="table-wrap">
        <table data-testid="webhooks">
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {hooks.data?.webhooks.map((h) => (
              <tr key={h.id} data-webhook={h.id}>
                <td>
                  <Text value={h.url} />
                </td>
                <td>{h.types.join(', ')}</td>
                <td>{h.enabled ? (h.failingSince ? `failing since ${ago(h.failingSince)}` : 'enabled') : <Text value={`disabled${h.disabledReason ? ': ' + h.disabledReason : ''}`} />}</td>
                <td class="row">
                  <button type="button" class="btn btn-small" data-testid="webhook-log" onClick={() => setOpen(open === h.id ? null : h.id)}>
                    Deliveries
                  </button>
                  <button type="button" class="btn btn-small" data-testid="webhook-test" onClick={() => (act(`/webhooks/${enc(h.id)}/test`), setOpen(h.id))}>
                    Test
                  </button>
                  <button type="button" class="btn btn-small" data-testid="webhook-delete" onClick={() => act(`/webhooks/${enc(h.id)}`, 'DELETE')}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {open && <Deliveries id={open} />}
    </Section>
  );
}

function Deliveries({ id }: { id: string }) {
  const [n, setN] = useState(0);
  const log = useAsync(() => api<S['DeliveryList']>(`/webhooks/${enc(id)}/deliveries?limit=20`), [id, n]);
  return (
    <div class="table-wrap">
      <div class="row">
        <h3>Deliveries</h3>
        <button type="button" class="btn btn-small" data-testid="deliveries-reload" onClick={() => setN(n + 1)}>
          Reload
        </button>
      </div>
      <ErrorText error={log.error} />
      <table data-testid="deliveries">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">State</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
          </tr>
        </thead>
        <tbody>
          {log.data?.deliveries.map((d) => {
            const last = d.attempts[d.attempts.length - 1];
            return (
              <tr key={d.id} data-delivery={d.id}>
                <td>
                  {d.type} <span class="muted">{ago(d.createdAt)}</span>
                </td>
                <td data-testid="delivery-state">{d.state}</td>
                <td>{d.attempts.length}</td>
                <td>{last ? <Text value={`${last.status ?? 'no answer'} in ${last.latencyMs} ms${last.error ? ': ' + last.error : ''}`} /> : '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
