// The person's own wallet, through EIP-1193 (window.ethereum): accounts, the chain, and
// transactions confirmed there. The page composes; the wallet signs.
import { ApiError, getConfig, type UnsignedTx } from './api';
import { explain } from './codes';
import { hexWei, visible } from './format';
import { Store } from './store';

interface Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
  on?(event: string, f: (...a: unknown[]) => void): void;
}

export const account = new Store<string | null>(null);

export function provider(): Provider | null {
  const p = (window as unknown as { ethereum?: Provider }).ethereum;
  return p && typeof p.request === 'function' ? p : null;
}

let watching = false;

/** connect asks the wallet for its account (eth_requestAccounts). */
export async function connect(): Promise<string> {
  const p = provider();
  if (!p) throw new Error('no browser wallet: install one, or sign in to use your custodial wallet');
  const accs = (await p.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accs?.length) throw new Error('the wallet shared no account');
  account.set(accs[0]);
  if (!watching && p.on) {
    watching = true;
    p.on('accountsChanged', (a) => account.set((a as string[])[0] ?? null));
  }
  return accs[0];
}

/** ensureChain switches the wallet to the server's chain, adding it when the wallet lacks it. */
export async function ensureChain(): Promise<void> {
  const p = provider()!;
  const cfg = await getConfig();
  const chainId = '0x' + cfg.chainId.toString(16);
  if ((await p.request({ method: 'eth_chainId' })) === chainId) return;
  try {
    await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
  } catch (e) {
    const rpc = (cfg as { rpcUrl?: string | null }).rpcUrl;
    if ((e as { code?: number }).code !== 4902 || !rpc) throw e;
    await p.request({
      method: 'wallet_addEthereumChain',
      params: [{ chainId, chainName: `curvekit chain ${cfg.chainId}`, rpcUrls: [rpc], nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 } }],
    });
  }
}

/** send has the wallet confirm and send tx from the connected account; it returns the hash. */
export async function send(tx: UnsignedTx): Promise<string> {
  const from = account.get() ?? (await connect());
  await ensureChain();
  const req: Record<string, string> = { from, to: tx.to, data: tx.data, value: hexWei(tx.value) };
  if (tx.gas) req.gas = hexWei(tx.gas);
  return (await provider()!.request({ method: 'eth_sendTransaction', params: [req] })) as string;
}

/** mined waits for tx's receipt through the wallet's node; a reverted transaction throws. */
export async function mined(hash: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const r = (await provider()!.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { status?: string } | null;
    if (r) {
      if (r.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return;
    }
    await new Promise((f) => setTimeout(f, 500));
  }
  throw new Error(`transaction ${hash} was not mined in ${timeoutMs / 1000}s`);
}

/** errorText says what went wrong in words: a refusal's code explained, then the server's own
 * message (its hidden characters made visible: it may quote what a stranger chose). */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    const why = explain(e.code);
    return visible(why ? `${why} (${e.code}: ${e.message})` : e.message);
  }
  const err = e as { code?: number; message?: string };
  if (err?.code === 4001) return 'You rejected the request in your wallet.';
  return visible(err?.message ?? String(e));
}
