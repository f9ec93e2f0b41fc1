// The page: a hash router over the market, token, launch, creator, account and agent views.
// The API keeps its paths; the page lives at / and routes after the #.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Account } from './account';
import { Agent } from './agent';
import { Creator } from './creator';
import { Launch } from './launch';
import { Market } from './market';
import { loadSession } from './session';
import { TokenPage } from './token';
import { ConfirmDialog, SessionButton, WalletButton } from './ui';
import { account, provider } from './wallet';

// A route is a page, its subject (a token's address) and the tab it shows (#/market/<tab>,
// #/token/<address>/<tab>); a change of tab alone neither scrolls nor moves the focus.
function route(): { page: string; arg?: string; tab?: string } {
  const h = location.hash.replace(/^#\/?/, '');
  const [page, arg, tab] = h.split('/');
  if (page === 'token' && /^0x[0-9a-fA-F]{40}$/.test(arg ?? '')) return { page, arg, tab };
  if (page === 'market') return { page, tab: arg };
  if (['launch', 'creator', 'account', 'agent'].includes(page)) return { page };
  return { page: 'market' };
}

const titles: Record<string, string> = { market: 'Market', token: 'Token', launch: 'Launch', creator: 'Creator fees', account: 'Account', agent: 'Agent' };

function App() {
  const [r, setR] = useState(route());
  const shown = useRef(r);
  shown.current = r;
  useEffect(() => {
    const on = () => {
      const next = route();
      if (next.page !== shown.current.page || next.arg !== shown.current.arg) window.scrollTo(0, 0);
      setR(next);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  useEffect(() => {
    document.title = `${titles[r.page]} · curvekit`;
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [r.page, r.arg]);
  const nav = (p: string, label: string) => (
    <a href={`#/${p === 'market' ? '' : p}`} class="nav-link" aria-current={r.page === p ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <a href="#/" class="brand" aria-label="curvekit home">
          <span aria-hidden="true">◢</span> curvekit
        </a>
        <nav aria-label="Main">
          {nav('market', 'Market')}
          {nav('launch', 'Launch')}
          {nav('creator', 'Creator')}
          {nav('agent', 'Agent')}
        </nav>
        <div class="top-right">
          <SessionButton />
          <WalletButton />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {r.page === 'market' && <Market tab={r.tab} />}
        {r.page === 'token' && <TokenPage key={r.arg} address={r.arg!} tab={r.tab} />}
        {r.page === 'launch' && <Launch />}
        {r.page === 'creator' && <Creator />}
        {r.page === 'account' && <Account />}
        {r.page === 'agent' && <Agent />}
      </main>
      <footer class="foot">
        <span>Amounts are exact on the server; prices here are rounded for reading.</span> <a href="/openapi.json">API</a>
      </footer>
      <ConfirmDialog />
    </>
  );
}

// Back from signing in: the page the person left.
const back = sessionStorage.getItem('curvekit.return');
if (back) {
  sessionStorage.removeItem('curvekit.return');
  if (!location.hash || location.hash === '#/') location.hash = back;
}
loadSession();
// A wallet that already shared an account with this site reconnects without asking.
provider()
  ?.request({ method: 'eth_accounts' })
  .then((a) => account.set((a as string[])[0] ?? null))
  .catch(() => undefined);
render(<App />, document.getElementById('app')!);
