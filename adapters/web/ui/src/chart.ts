// Charts with TradingView's lightweight-charts, loaded only by the pages that draw one. Its own
// attribution logo comes with an inline <style> that the page's CSP refuses, so the logo is off
// and the pages that draw a chart credit TradingView with a link of their own (Attribution).
import { CandlestickSeries, ColorType, createChart, HistogramSeries, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import type { Bar } from './api';
import { price } from './format';

function colors() {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  return { text: dark ? '#c9d1d9' : '#1f2328', grid: dark ? '#21262d' : '#eaeef2', bg: dark ? '#0d1117' : '#ffffff' };
}

/** Candles is a candlestick chart with volume that keeps its bars by time, as the token stream
 * asks: reset drops them, bar upserts one. */
export class Candles {
  private chart: IChartApi;
  private candles: ISeriesApi<'Candlestick'>;
  private volume: ISeriesApi<'Histogram'>;
  private bars = new Map<number, Bar>();
  private last = 0;
  private dirty = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(el: HTMLElement) {
    const c = colors();
    this.chart = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: c.bg }, textColor: c.text, attributionLogo: false },
      grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
      timeScale: { timeVisible: true, secondsVisible: false },
      localization: { priceFormatter: (p: number) => price(p) },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, {
      upColor: '#1a7f37', downColor: '#cf222e', borderVisible: false, wickUpColor: '#1a7f37', wickDownColor: '#cf222e',
      priceFormat: { type: 'custom', formatter: (p: number) => price(p), minMove: 1e-12 },
    });
    this.volume = this.chart.addSeries(HistogramSeries, { priceScaleId: 'volume', priceFormat: { type: 'volume' }, color: '#8c959f80' });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.candles.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.25 } });
    // The bars the chart holds, for whoever checks them against /candles.
    (el as unknown as { chartBars(): Bar[] }).chartBars = () => this.sorted();
  }

  reset(fromTime?: number) {
    if (fromTime === undefined) this.bars.clear();
    else for (const t of [...this.bars.keys()]) if (t >= fromTime) this.bars.delete(t);
    this.dirty = true;
    this.schedule();
  }

  bar(b: Bar) {
    this.bars.set(b.time, b);
    if (!this.dirty && b.time >= this.last && b.open !== null) {
      this.candles.update(this.point(b));
      this.volume.update({ time: b.time as UTCTimestamp, value: Number(b.volume) });
      this.last = b.time;
      return;
    }
    this.dirty = true;
    this.schedule();
  }

  private point(b: Bar) {
    return { time: b.time as UTCTimestamp, open: b.open!, high: b.high!, low: b.low!, close: b.close! };
  }

  private sorted(): Bar[] {
    return [...this.bars.values()].sort((a, b) => a.time - b.time);
  }

  // Replays arrive as many events: they are drawn once, after the burst.
  private schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.dirty) return;
      const bars = this.sorted().filter((b) => b.open !== null);
      this.candles.setData(bars.map((b) => this.point(b)));
      this.volume.setData(bars.map((b) => ({ time: b.time as UTCTimestamp, value: Number(b.volume) })));
      this.last = bars.length ? bars[bars.length - 1].time : 0;
      this.dirty = false;
    }, 30);
  }

  remove() {
    clearTimeout(this.timer);
    this.chart.remove();
  }
}

/** Earnings draws creator fees per day as columns. */
export function earningsChart(el: HTMLElement, points: { time: number; value: number }[]): () => void {
  const c = colors();
  const chart = createChart(el, {
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: c.bg }, textColor: c.text, attributionLogo: false },
    grid: { vertLines: { visible: false }, horzLines: { color: c.grid } },
  });
  const s = chart.addSeries(HistogramSeries, { color: '#0969da', priceFormat: { type: 'custom', formatter: (p: number) => price(p), minMove: 1e-12 } });
  s.setData(points.map((p) => ({ time: p.time as UTCTimestamp, value: p.value })));
  chart.timeScale().fitContent();
  return () => chart.remove();
}
