// Tabs as the WAI-ARIA tabs pattern has them: a tablist of tab buttons, one tab stop (the selected
// tab), the arrow keys, Home and End moving the selection, and a tabpanel per tab labelled by its
// tab. The selection is the caller's (the page keeps it in the URL), so reload, back and forward
// restore it; only the selected panel renders its content.
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export interface Tab {
  id: string;
  label: string;
}

export function Tabs({ id, label, tabs, selected, onSelect, children }: { id: string; label: string; tabs: Tab[]; selected: string; onSelect: (tab: string) => void; children: ComponentChildren }) {
  const list = useRef<HTMLDivElement>(null);
  function onKey(e: KeyboardEvent, i: number) {
    const n = tabs.length;
    const j = { ArrowRight: (i + 1) % n, ArrowLeft: (i + n - 1) % n, Home: 0, End: n - 1 }[e.key];
    if (j === undefined) return;
    e.preventDefault();
    list.current?.querySelectorAll<HTMLElement>('[role=tab]')[j]?.focus();
    if (tabs[j].id !== selected) onSelect(tabs[j].id);
  }
  return (
    <>
      <div role="tablist" aria-label={label} class="tabs" ref={list}>
        {tabs.map((t, i) => {
          const on = t.id === selected;
          return (
            <button
              type="button"
              role="tab"
              key={t.id}
              id={`${id}-tab-${t.id}`}
              aria-selected={on}
              aria-controls={`${id}-panel-${t.id}`}
              tabIndex={on ? 0 : -1}
              data-tab={t.id}
              onClick={() => !on && onSelect(t.id)}
              onKeyDown={(e) => onKey(e, i)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {tabs.map((t) => (
        <div role="tabpanel" key={t.id} id={`${id}-panel-${t.id}`} aria-labelledby={`${id}-tab-${t.id}`} hidden={t.id !== selected} class="tabpanel">
          {t.id === selected && children}
        </div>
      ))}
    </>
  );
}
