// Creator fees: what the connected wallet can claim per pairing asset and token, its earnings per
// day as a chart, and a claim per token confirmed in the wallet.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, type S } from './api';
import { amount, visible } from './format';
import { session, sendTx, via } from './session';
import { useStore } from './store';
import { Attribution, ErrorText, Section, Text, useAsync } from './ui';
import { account, connect, provider } from './wallet';

export function Creator() {
  const acc = useStore(account);
  const sess = useStore(session);
  const how = via();
  const wallet = how === 'wallet' ? acc : sess.user?.wallet ?? null;
  const fees = useAsync(() => (wallet ? api<S['CreatorFees']>(`/launch/fees/${enc(wallet)}`) : Promise.resolve(null)), [wallet]);
  const earn = useAsync(() => (wallet ? api<S['Earnings']>(`/launch/earnings/${enc(wallet)}?days=30`) : Promise.resolve(null)), [wallet]);
  const [status, setStatus] = useState<Record<string, string>>({});
  const [err, setErr] = useState<unknown>(null);

  if (!wallet) {
    return (
      <div class="narrow">
        <h1>Creator fees</h1>
        <p>Connect the wallet that launched your tokens to see and claim their fees.</p>
        {provider() ? (
          <button type="button" class="btn btn-primary" onClick={() => connect().catch(setErr)}>
            Connect wallet
          </button>
        ) : (
          <p class="muted">Install a browser wallet, or sign in to use your custodial wallet.</p>
        )}
        <ErrorText error={err} />
      </div>
    );
  }

  async function claim(token: string, symbol: string) {
    setErr(null);
    try {
      setStatus((s) => ({ ...s, [token]: 'Composing…' }));
      const c = await api<S['ClaimTx']>('/launch/claim-tx', { json: { from: wallet, token } });
      setStatus((s) => ({ ...s, [token]: 'Confirm in your wallet…' }));
      await sendTx(c, `Claim ${c.claimable} ${c.asset.symbol} of creator fees from ${symbol}`, how!, true);
      setStatus((s) => ({ ...s, [token]: 'Claimed: waiting for the indexer…' }));
      for (let i = 0; i < 120; i++) {
        const f = await api<S['CreatorFees']>(`/launch/fees/${enc(wallet!)}`);
        const t = f.assets.flatMap((a) => a.tokens).find((x) => x.address === token);
        if (!t || Number(t.claimable) === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      setStatus((s) => ({ ...s, [token]: 'Claimed.' }));
      fees.reload();
      earn.reload();
    } catch (e) {
      setErr(e);
      setStatus((s) => ({ ...s, [token]: '' }));
    }
  }

  return (
    <div>
      <h1>Creator fees</h1>
      <ErrorText error={fees.error || err} />
      {fees.data && fees.data.assets.length === 0 && <p class="muted">None of this wallet's tokens has earned fees yet.</p>}
      {fees.data?.assets.map((a) => (
        <Section key={a.asset.symbol} title={`Paid in ${visible(a.asset.symbol)}`}>
          <p>
            Claimable <strong data-testid={`claimable-${a.asset.symbol}`}>{a.claimable}</strong> <Text value={a.asset.symbol} /> · earned {amount(a.earned, 6)} · claimed {amount(a.claimed, 6)}
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Token</th>
                  <th scope="col">Claimable</th>
                  <th scope="col">Earned</th>
                  <th scope="col">Claimed</th>
                  <th scope="col">
                    <span class="sr-only">Action</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {a.tokens.map((t) => (
                  <tr key={t.address} data-token={t.address}>
                    <td>
                      <a href={`#/token/${t.address}`}>
                        <Text value={t.name} />
                      </a>{' '}
                      <span class="token-symbol">
                        <Text value={t.symbol} />
                      </span>
                    </td>
                    <td data-testid="token-claimable">{t.claimable}</td>
                    <td>{amount(t.earned, 6)}</td>
                    <td>{amount(t.claimed, 6)}</td>
                    <td>
                      {Number(t.claimable) > 0 ? (
                        <button type="button" class="btn btn-small btn-primary" data-testid="claim" onClick={() => claim(t.address, t.symbol)}>
                          Claim
                        </button>
                      ) : null}{' '}
                      <span class="status" aria-live="polite">
                        {status[t.address]}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      ))}
      {earn.data?.assets.map((a) => (
        <EarningsChart key={a.asset.symbol} series={a.series} symbol={a.asset.symbol} total={a.earned} />
      ))}
    </div>
  );
}

function EarningsChart({ series, symbol, total }: { series: S['DayPoint'][]; symbol: string; total: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let remove: (() => void) | undefined;
    let closed = false;
    import('./chart').then(({ earningsChart }) => {
      if (!closed && el.current) remove = earningsChart(el.current, series.map((p) => ({ time: p.time, value: Number(p.earned) })));
    });
    return () => {
      closed = true;
      remove?.();
    };
  }, [series]);
  return (
    <Section title={`Earned per day, ${visible(symbol)}`}>
      <p class="muted">
        {total} <Text value={symbol} /> over the last 30 days.
      </p>
      <div class="chart small" ref={el} role="img" aria-label={`Creator fees earned per day in ${visible(symbol)}`} />
      <Attribution />
    </Section>
  );
}
