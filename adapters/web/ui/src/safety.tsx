// Wallet safety: the account's settings that guard its custodial wallet, each with its effect in
// words (pause, caps per pairing asset, the price-impact cap, recipients and their cooldowns, a
// running relaxation), the pause switch one click away, and the activity log of changes and
// refusals with their codes explained.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, getConfig, type S } from './api';
import { explain } from './codes';
import { ago, short, visible, when } from './format';
import { signIn } from './session';
import { ErrorText, Section, Text, useAsync, usePages } from './ui';

type Settings = S['Settings'];

/** useAssetNames maps the pairing assets' keys (ETH, or an ERC-20's address) to their symbols. */
function useAssetNames(): (key: string) => string {
  const [names, setNames] = useState<Record<string, string>>({ eth: 'ETH' });
  useEffect(() => {
    getConfig().then(
      (cfg) => setNames(Object.fromEntries([['eth', 'ETH'], ...cfg.quoteAssets.filter((a) => a.address).map((a) => [a.address!.toLowerCase(), a.symbol])])),
      () => undefined,
    );
  }, []);
  return (key) => names[key.toLowerCase()] ?? short(key);
}

function capsText(limits: Record<string, S['Limit']>, name: (k: string) => string): string[] {
  return Object.entries(limits).map(([k, l]) => {
    const sym = visible(name(k));
    const parts = [l.perTransaction !== null ? `at most ${l.perTransaction} ${sym} per transaction` : '', l.daily !== null ? `at most ${l.daily} ${sym} in any 24 hours` : ''].filter(Boolean);
    return `${sym}: ${parts.length ? parts.join(', ') : 'no cap'} may leave the wallet.`;
  });
}

export function WalletSafety() {
  const settings = useAsync(() => api<Settings>('/account/settings'), []);
  const [current, setCurrent] = useState<Settings | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [stale, setStale] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  const [activityRev, setActivityRev] = useState(0);
  const name = useAssetNames();
  const s = current ?? settings.data;

  async function togglePause() {
    if (!s) return;
    const paused = !s.wallet.paused;
    setErr(null);
    setNote('');
    setStale(false);
    setBusy(true);
    try {
      const next = await api<Settings>('/account/settings', { method: 'PATCH', json: { wallet: { paused } } });
      setCurrent(next);
      setNote(paused ? `Paused at ${when(next.updatedAt)}: your custodial wallet signs nothing until you resume it.` : `Resumed at ${when(next.updatedAt)}: your custodial wallet signs again what passes the settings below.`);
      setActivityRev((n) => n + 1);
    } catch (x) {
      if (x instanceof ApiError && x.status === 403 && /sign in again/.test(x.message)) setStale(true);
      else setErr(x);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section title="Wallet safety" id="safety-title">
      <p class="muted">A second guard on your custodial wallet: every send, yours, your API keys' and your orders', passes these before anything is signed, and is simulated first.</p>
      <ErrorText error={settings.error} />
      {s && (
        <>
          <div class={s.wallet.paused ? 'notice warn' : 'notice'}>
            <div class="row between">
              <p data-testid="pause-state">
                <strong>{s.wallet.paused ? 'Paused.' : 'Active.'}</strong> {s.wallet.paused ? 'Nothing is signed: no send, no order fires. Exporting the key still works.' : 'The wallet signs what passes the settings below.'}
              </p>
              <button type="button" class={s.wallet.paused ? 'btn btn-primary' : 'btn btn-danger'} disabled={busy} onClick={togglePause} data-testid="pause">
                {s.wallet.paused ? 'Resume the wallet' : 'Pause the wallet'}
              </button>
            </div>
            <p class="status" role="status" data-testid="pause-note">
              {note}
            </p>
            {stale && (
              <p>
                Resuming loosens the guard, so it needs a sign-in within the last 15 minutes.{' '}
                <button type="button" class="btn btn-small" onClick={signIn}>
                  Sign in again
                </button>
              </p>
            )}
            <ErrorText error={err} />
          </div>
          <dl class="kv" data-testid="safety-settings">
            <dt>Caps</dt>
            <dd data-testid="safety-caps">
              {Object.keys(s.wallet.limits).length ? capsText(s.wallet.limits, name).map((t) => <div key={t}>{t}</div>) : 'None: any amount may leave the wallet.'}
            </dd>
            <dt>Price impact</dt>
            <dd data-testid="safety-impact">A trade that would move the price by more than {s.wallet.maxPriceImpact}% is refused.</dd>
            <dt>Recipients</dt>
            <dd data-testid="safety-recipients">
              <Recipients recipients={s.wallet.recipients} cooldown={s.wallet.recipientCooldownHours} />
            </dd>
            <dt>Relaxation</dt>
            <dd data-testid="safety-relax">
              {s.wallet.relax ? (
                <>
                  Relaxed for {s.wallet.relax.minutes} minutes, until {when(s.wallet.relax.until)}, when it reverts by itself.{' '}
                  {capsText(s.wallet.relax.limits, name).join(' ')}
                  {s.wallet.relax.maxPriceImpact !== null && ` Price impact up to ${s.wallet.relax.maxPriceImpact}%.`}
                </>
              ) : (
                'None running: the settings above apply.'
              )}
            </dd>
            <dt>Changed</dt>
            <dd>{s.version ? `${s.version === 1 ? 'once' : `${s.version} times`}, last ${ago(s.updatedAt)}` : 'never: the defaults apply'}</dd>
          </dl>
        </>
      )}
      <Activity rev={activityRev} />
    </Section>
  );
}

function Recipients({ recipients, cooldown }: { recipients: Record<string, S['Recipient']>; cooldown: number }) {
  const list = Object.entries(recipients);
  const now = Date.now() / 1000;
  return (
    <>
      <div>
        {list.length
          ? 'Only these addresses (beside your wallet and the trading venues) may receive value, tokens or an allowance from it.'
          : 'No list of your own: any address may receive (an API key may still hold its own list).'}{' '}
        New recipients wait {cooldown} hours before they may receive.
      </div>
      {list.length > 0 && (
        <ul class="plain">
          {list.map(([addr, r]) => (
            <li key={addr}>
              <code>{addr}</code> {r.activeAt <= now ? `active since ${when(r.activeAt)}` : `cooling down until ${when(r.activeAt)}`}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Activity lists the settings' changes and the guard's refusals, newest first, a page at a time. */
function Activity({ rev }: { rev: number }) {
  const [reload, setReload] = useState(0);
  const { rows, error: err, more } = usePages<S['ActivityList'], S['Activity']>(
    (cursor) => `/account/activity?limit=20${cursor ? '&cursor=' + encodeURIComponent(cursor) : ''}`,
    (p) => p.activity,
    [rev, reload],
  );
  return (
    <>
      <div class="row between">
        <h3>Activity</h3>
        <button type="button" class="btn btn-small" data-testid="activity-reload" onClick={() => setReload(reload + 1)}>
          Reload
        </button>
      </div>
      <ErrorText error={err} />
      {rows.length === 0 && !err && <p class="muted">No changes and no refusals yet.</p>}
      <ul class="activity" data-testid="activity">
        {rows.map((a) => (
          <li key={a.id} data-activity={a.id} data-kind={a.kind} data-code={a.code ?? ''}>
            <div class="row between">
              <strong>{a.kind === 'refusal' ? 'Refused' : a.kind === 'settings' ? 'Settings changed' : 'Webhook disabled'}</strong>
              <span class="muted">
                {when(a.at)} · by <Text value={a.actor} />
              </span>
            </div>
            {a.code && (
              <p>
                {explain(a.code) ?? 'A refusal.'} <code>{a.code}</code>
              </p>
            )}
            <p class="muted">
              <Text value={a.message} />
            </p>
          </li>
        ))}
      </ul>
      {more && (
        <button type="button" class="btn more" data-testid="activity-more" onClick={more}>
          Older
        </button>
      )}
    </>
  );
}
