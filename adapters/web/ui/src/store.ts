// A value the page's parts share (the connected account, the session), with a hook that
// re-renders on change.
import { useEffect, useState } from 'preact/hooks';

export class Store<T> {
  private subs = new Set<(v: T) => void>();
  constructor(private v: T) {}
  get(): T {
    return this.v;
  }
  set(v: T) {
    this.v = v;
    this.subs.forEach((f) => f(v));
  }
  subscribe(f: (v: T) => void): () => void {
    this.subs.add(f);
    return () => this.subs.delete(f);
  }
}

export function useStore<T>(s: Store<T>): T {
  const [v, setV] = useState(s.get());
  useEffect(() => {
    setV(s.get());
    return s.subscribe(setV);
  }, [s]);
  return v;
}
