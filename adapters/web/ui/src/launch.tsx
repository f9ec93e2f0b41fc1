// Launch: the form, the image checked and previewed before upload, the daily limit and the fee
// estimate; then the image and metadata pinned, the factory call composed, confirmed in the
// wallet, and the new token's page opened once the indexer has it.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, getConfig, type S, type Token } from './api';
import { visible, whole } from './format';
import { session, sendTx, via } from './session';
import { useStore } from './store';
import { ErrorText, useAsync } from './ui';
import { account, connect, provider } from './wallet';

const maxImage = 5 * 1024 * 1024;
const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export function Launch() {
  const cfg = useAsync(getConfig, []);
  const acc = useStore(account);
  const sess = useStore(session);
  const how = via();
  const wallet = how === 'wallet' ? acc : sess.user?.wallet ?? null;
  const [f, setF] = useState({ name: '', symbol: '', description: '', website: '', twitter: '', telegram: '', pairing: 'ETH', initialBuy: '' });
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState('');
  const [fileErr, setFileErr] = useState('');
  const [drag, setDrag] = useState(false);
  const [status, setStatus] = useState('');
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const limit = useAsync(() => (wallet ? api<S['DailyLimit']>(`/launch/daily-limit/${enc(wallet)}`) : Promise.resolve(null)), [wallet]);
  const fee = useAsync(() => (wallet ? api<S['Estimate']>(`/launch/estimate-fee?from=${enc(wallet)}`) : Promise.resolve(null)), [wallet]);

  useEffect(() => () => preview && URL.revokeObjectURL(preview), [preview]);

  function pick(fl: FileList | null | undefined) {
    const x = fl?.[0];
    setFileErr('');
    if (!x) return;
    if (!imageTypes.includes(x.type)) {
      setFileErr('The image must be PNG, JPEG, GIF or WebP.');
      return;
    }
    if (x.size > maxImage) {
      setFileErr(`The image is ${(x.size / 1048576).toFixed(1)} MB; at most 5 MB is accepted.`);
      return;
    }
    setFile(x);
    setPreview(URL.createObjectURL(x));
  }

  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  async function submit(e: Event) {
    e.preventDefault();
    if (!how) return;
    setErr(null);
    setBusy(true);
    try {
      const from = how === 'wallet' ? (acc ?? (await connect())) : sess.user!.wallet;
      let imageUrl: string | undefined;
      if (file) {
        setStatus('Pinning the image…');
        const fd = new FormData();
        fd.append('file', file);
        imageUrl = (await api<S['Image']>('/launch/upload-image', { method: 'POST', body: fd })).imageUrl;
      }
      setStatus('Pinning the metadata…');
      const md: Record<string, string> = { name: f.name, symbol: f.symbol, description: f.description };
      if (imageUrl) md.imageUrl = imageUrl;
      for (const k of ['website', 'twitter', 'telegram'] as const) if (f[k].trim()) md[k] = f[k].trim();
      const meta = await api<S['Metadata']>('/launch/metadata', { json: md });
      setStatus('Composing the launch…');
      const body: Record<string, string> = { from, name: f.name, symbol: f.symbol, uri: meta.uri, pairing: f.pairing };
      if (f.initialBuy.trim()) body.initialBuy = f.initialBuy.trim();
      const tx = await api<S['LaunchTx']>('/launch/build-tx', { json: body });
      if (tx.approval) {
        setStatus('Approve the first buy: confirm in your wallet…');
        await sendTx(tx.approval, `Approve ${tx.approval.amount} ${tx.pairing.symbol} for the factory`, how, true);
      }
      setStatus(how === 'wallet' ? 'Confirm the launch in your wallet…' : 'Sending…');
      const hash = await sendTx(tx, `Launch ${f.name} (${f.symbol}) paired with ${tx.pairing.symbol}`, how);
      setStatus('Launched: waiting for the indexer…');
      for (let i = 0; i < 240; i++) {
        const page = await api<S['TokenList']>(`/tokens?sort=newest&limit=20&q=${enc(f.symbol)}`);
        const t = page.tokens.find((x: Token) => x.launchTx.toLowerCase() === hash.toLowerCase());
        if (t) {
          location.hash = `#/token/${t.address}`;
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      setStatus(`Sent as ${hash}; the indexer has not shown it yet.`);
    } catch (e) {
      setErr(e);
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  const assets = cfg.data?.quoteAssets ?? [{ address: null, symbol: 'ETH', decimals: 18 }];
  return (
    <div class="narrow">
      <h1>Launch a token</h1>
      <form class="card form" onSubmit={submit}>
        <label>
          Name
          <input required maxLength={32} value={f.name} onInput={set('name')} data-testid="launch-name" />
        </label>
        <label>
          Symbol
          <input required maxLength={10} pattern="[A-Za-z0-9]{1,10}" value={f.symbol} onInput={set('symbol')} data-testid="launch-symbol" />
        </label>
        <label>
          Description
          <textarea maxLength={1000} rows={3} value={f.description} onInput={set('description')} />
        </label>
        <div
          class={`drop ${drag ? 'over' : ''}`}
          onDragOver={(e) => (e.preventDefault(), setDrag(true))}
          onDragLeave={() => setDrag(false)}
          onDrop={(e) => (e.preventDefault(), setDrag(false), pick(e.dataTransfer?.files))}
        >
          {preview ? <img src={preview} alt="Preview of the token image" class="preview" width={96} height={96} /> : <span class="muted">Drop an image here</span>}
          <label>
            Image (PNG, JPEG, GIF or WebP, at most 5 MB)
            <input type="file" accept={imageTypes.join(',')} onChange={(e) => pick((e.target as HTMLInputElement).files)} data-testid="launch-image" />
          </label>
          {fileErr && (
            <p class="error" role="alert">
              {fileErr}
            </p>
          )}
        </div>
        <fieldset>
          <legend>Links (optional)</legend>
          <label>
            Website
            <input type="url" value={f.website} onInput={set('website')} placeholder="https://" />
          </label>
          <label>
            X (Twitter)
            <input type="url" value={f.twitter} onInput={set('twitter')} placeholder="https://x.com/…" />
          </label>
          <label>
            Telegram
            <input type="url" value={f.telegram} onInput={set('telegram')} placeholder="https://t.me/…" />
          </label>
        </fieldset>
        <div class="row">
          <label>
            Paired with
            <select value={f.pairing} onChange={set('pairing')}>
              {assets.map((a) => (
                <option key={a.symbol} value={a.address ?? 'ETH'}>
                  {visible(a.symbol)}
                </option>
              ))}
            </select>
          </label>
          <label>
            First buy (optional)
            <input inputMode="decimal" value={f.initialBuy} onInput={set('initialBuy')} placeholder="0" />
          </label>
        </div>
        <dl class="kv" aria-live="polite">
          <dt>Launches today</dt>
          <dd data-testid="daily-limit">
            {limit.data ? `${limit.data.used} of ${limit.data.limit} (${limit.data.tier}); ${limit.data.remaining} left` : wallet ? '…' : 'connect a wallet to see'}
          </dd>
          <dt>Estimated cost</dt>
          <dd data-testid="fee-estimate">{fee.data ? `${whole(BigInt(fee.data.total), 18)} ETH (gas ${fee.data.gas}, launch fee ${whole(BigInt(fee.data.launchFee), 18)} ETH)` : fee.error ? 'unavailable' : '—'}</dd>
        </dl>
        {!how && <p class="muted">Install a browser wallet, or sign in to launch with your custodial wallet.</p>}
        {how === 'wallet' && !acc && provider() && (
          <button type="button" class="btn" onClick={() => connect().catch(setErr)}>
            Connect wallet
          </button>
        )}
        <button type="submit" class="btn btn-primary" disabled={busy || !how || limit.data?.canLaunch === false} data-testid="launch-submit">
          {how === 'custodial' ? 'Launch with my custodial wallet…' : 'Launch: confirm in wallet'}
        </button>
        <p class="status" aria-live="polite" data-testid="launch-status">
          {status}
        </p>
        <ErrorText error={err} />
      </form>
    </div>
  );
}
