/**
 * A virtualised list of fixed-height rows: only the rows in view (plus a margin) are in the DOM, so 5,000 rows
 * scroll as smoothly as 50. Keyboard: the list is one tab stop; arrow keys, Page Up/Down, Home/End move the focused
 * row, Enter activates it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** The visible height in px; the list scrolls within it. */
  height: number | string;
  render: (item: T, index: number, focused: boolean) => ComponentChildren;
  keyOf: (item: T) => string;
  onActivate?: (item: T) => void;
  label: string;
  header?: ComponentChildren;
  testId?: string;
}

export function VirtualList<T>(p: VirtualListProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [focus, setFocus] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    setViewport(el.clientHeight);
    return () => ro.disconnect();
  }, []);
  useEffect(() => {
    if (focus >= p.items.length && p.items.length > 0) setFocus(p.items.length - 1);
  }, [p.items.length]);
  const overscan = 10;
  const first = Math.max(0, Math.floor(scrollTop / p.rowHeight) - overscan);
  const last = Math.min(p.items.length, Math.ceil((scrollTop + viewport) / p.rowHeight) + overscan);
  const visible: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const item = p.items[i]!;
    visible.push(
      <div
        key={p.keyOf(item)}
        role="row"
        aria-rowindex={i + 1}
        class={`vrow${i === focus ? ' focused' : ''}`}
        style={{ top: `${i * p.rowHeight}px`, height: `${p.rowHeight}px` }}
        onClick={() => {
          setFocus(i);
          p.onActivate?.(item);
        }}
      >
        {p.render(item, i, i === focus)}
      </div>,
    );
  }
  const move = (to: number) => {
    const i = Math.max(0, Math.min(p.items.length - 1, to));
    setFocus(i);
    const el = ref.current;
    if (!el) return;
    const top = i * p.rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + p.rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + p.rowHeight - el.clientHeight;
  };
  const page = Math.max(1, Math.floor(viewport / p.rowHeight) - 1);
  return (
    <div
      ref={ref}
      class="vlist"
      role="grid"
      aria-label={p.label}
      aria-rowcount={p.items.length}
      tabIndex={0}
      data-testid={p.testId}
      style={{ height: typeof p.height === 'number' ? `${p.height}px` : p.height }}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onKeyDown={(e) => {
        const keys: Record<string, number> = { ArrowDown: focus + 1, ArrowUp: focus - 1, PageDown: focus + page, PageUp: focus - page, Home: 0, End: p.items.length - 1 };
        if (e.key in keys) {
          e.preventDefault();
          move(keys[e.key]!);
        } else if (e.key === 'Enter' && p.items[focus] !== undefined) {
          e.preventDefault();
          p.onActivate?.(p.items[focus]!);
        }
      }}
    >
      {p.header}
      <div class="vspace" style={{ height: `${p.items.length * p.rowHeight}px` }}>
        {visible}
      </div>
    </div>
  );
}
