// @ts-check
/**
 * Small SVG charts for the dashboard's last-hour history: stacked bars and lines over
 * fixed time buckets, with axes, units, a legend and an empty state. No dependencies, no network.
 * Every label is set with textContent, never as markup.
 */

const SVG = 'http://www.w3.org/2000/svg';
/** The drawing's own coordinates; the SVG scales to its box. */
const WIDTH = 560;
const HEIGHT = 190;
const MARGIN = { top: 22, right: 12, bottom: 26, left: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** An x-axis label every this many buckets (every 15 minutes with 1-minute buckets). */
const X_LABEL_EVERY = 15;

/**
 * @typedef {object} Series
 * @property {string} label
 * @property {string} color A CSS colour (a `var(--x)` works).
 * @property {(number | null)[]} values One per bucket, oldest first; null: no value.
 * @property {boolean} [dashed]
 */

/**
 * @typedef {object} ChartInput
 * @property {string} testId
 * @property {Series[]} series
 * @property {number} start Epoch ms at which the first bucket starts.
 * @property {number} bucketMs
 * @property {(value: number) => string} format Formats a y value with its unit, e.g. `12 req/min`.
 * @property {string} yTitle The y axis's unit, e.g. `req/min`.
 * @property {string} [empty] Shown when no series has a value.
 * @property {number} [minMax] The y axis reaches at least this (e.g. 1 for counts).
 * @property {boolean} [integer] Values are counts: a small axis is labelled in whole numbers.
 */

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @returns {SVGElement}
 */
function svg(tag, attributes = {}) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/** @param {string} tag @param {Record<string, string | number>} attributes @param {string} text */
function svgText(tag, attributes, text) {
  const element = svg(tag, attributes);
  element.textContent = text;
  return element;
}

/**
 * The smallest 1, 2 or 5 times a power of ten at or above `value`: a round top for the y axis.
 * @param {number} value
 */
export function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** @param {number} epochMs */
const clockLabel = (epochMs) =>
  new Date(epochMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hour12: false });

/**
 * Grid lines above the zero line for a round `top`: steps of 1, 2, 5 or 10 times a power of ten (so
 * 10 has 5 steps of 2, 200 has 4 steps of 50); a small count axis gets one line per whole count.
 * @param {number} top
 * @param {boolean} integer
 */
export function toTickCount(top, integer) {
  if (integer && top <= 5) return Math.max(1, Math.round(top));
  const leading = Math.round(top / 10 ** Math.floor(Math.log10(top)));
  return leading === 2 ? 4 : 5;
}

/**
 * Axes, grid and labels; returns the scales.
 * @param {SVGElement} root
 * @param {{ buckets: number, top: number, input: ChartInput }} frame
 */
function drawFrame(root, { buckets, top, input }) {
  const x = (/** @type {number} */ index) => MARGIN.left + (index / buckets) * PLOT_WIDTH;
  const y = (/** @type {number} */ value) => MARGIN.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const grid = svg('g', { class: 'chart-grid' });
  const ticks = toTickCount(top, input.integer === true);
  for (let tick = 0; tick <= ticks; tick += 1) {
    const value = (top * tick) / ticks;
    grid.append(
      svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(value), y2: y(value) }),
      svgText(
        'text',
        { x: MARGIN.left - 6, y: y(value) + 4, 'text-anchor': 'end', class: 'chart-tick' },
        input.format(value),
      ),
    );
  }
  for (let index = 0; index <= buckets; index += X_LABEL_EVERY) {
    const at = index === buckets ? buckets : index;
    grid.append(
      svg('line', {
        x1: x(at),
        x2: x(at),
        y1: MARGIN.top + PLOT_HEIGHT,
        y2: MARGIN.top + PLOT_HEIGHT + 4,
        class: 'chart-axis',
      }),
      svgText(
        'text',
        {
          x: x(at),
          y: HEIGHT - 8,
          'text-anchor': index === 0 ? 'start' : index === buckets ? 'end' : 'middle',
          class: 'chart-tick',
        },
        index === buckets ? 'now' : clockLabel(input.start + at * input.bucketMs),
      ),
    );
  }
  grid.append(
    svg('line', {
      x1: MARGIN.left,
      x2: MARGIN.left,
      y1: MARGIN.top,
      y2: MARGIN.top + PLOT_HEIGHT,
      class: 'chart-axis',
    }),
    svg('line', {
      x1: MARGIN.left,
      x2: WIDTH - MARGIN.right,
      y1: MARGIN.top + PLOT_HEIGHT,
      y2: MARGIN.top + PLOT_HEIGHT,
      class: 'chart-axis',
    }),
    svgText('text', { x: MARGIN.left - 6, y: 11, 'text-anchor': 'end', class: 'chart-unit' }, input.yTitle),
  );
  root.append(grid);
  return { x, y };
}

/**
 * The chart's SVG element with its legend below, in one figure.
 * @param {ChartInput} input
 * @param {(root: SVGElement, scale: { x: (index: number) => number, y: (value: number) => number }, buckets: number) => void} draw
 * @param {{ top: number, empty: boolean }} scaleInfo
 */
function figure(input, draw, { top, empty }) {
  const buckets = Math.max(1, ...input.series.map((entry) => entry.values.length));
  const root = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'chart',
    role: 'img',
    'data-testid': input.testId,
  });
  const scale = drawFrame(root, { buckets, top, input });
  root.setAttribute('data-empty', String(empty));
  if (empty) {
    root.append(
      svgText(
        'text',
        {
          x: MARGIN.left + PLOT_WIDTH / 2,
          y: MARGIN.top + PLOT_HEIGHT / 2,
          'text-anchor': 'middle',
          class: 'chart-empty',
        },
        input.empty ?? 'No data in the last hour',
      ),
    );
  } else draw(root, scale, buckets);
  const legend = document.createElement('ul');
  legend.className = 'legend';
  legend.dataset['testid'] = `${input.testId}-legend`;
  for (const entry of input.series) {
    const item = document.createElement('li');
    item.dataset['testid'] = 'legend-item';
    item.dataset['series'] = entry.label;
    const swatch = document.createElement('span');
    swatch.className = entry.dashed === true ? 'swatch dashed' : 'swatch';
    swatch.style.setProperty('--c', entry.color);
    item.append(swatch, entry.label);
    legend.append(item);
  }
  const wrapper = document.createElement('figure');
  wrapper.className = 'chart-figure';
  wrapper.append(root, legend);
  return wrapper;
}

/**
 * Stacked bars, one stack per bucket (counts: nulls count as 0).
 * @param {ChartInput} input
 */
export function stackedBars(input) {
  const buckets = Math.max(1, ...input.series.map((entry) => entry.values.length));
  const totals = Array.from({ length: buckets }, (_, index) =>
    input.series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0),
  );
  const top = niceCeiling(Math.max(input.minMax ?? 1, ...totals));
  let bars = 0;
  const chart = figure(
    input,
    (root, scale) => {
      const width = Math.max(1, PLOT_WIDTH / buckets - 1.5);
      const base = Array.from({ length: buckets }, () => 0);
      for (const entry of input.series) {
        const group = svg('g', { 'data-series': entry.label, style: `fill: ${entry.color}` });
        entry.values.forEach((value, index) => {
          if (value === null || value <= 0) return;
          const below = base[index] ?? 0;
          const y = scale.y(below + value);
          const rect = svg('rect', {
            x: scale.x(index) + 0.75,
            y,
            width,
            height: Math.max(1, scale.y(below) - y),
            class: 'bar',
          });
          rect.append(svgText('title', {}, `${entry.label}: ${input.format(value)}`));
          group.append(rect);
          base[index] = below + value;
          bars += 1;
        });
        root.append(group);
      }
    },
    { top, empty: totals.every((total) => total <= 0) },
  );
  chart.querySelector('svg')?.setAttribute('data-bars', String(bars));
  return chart;
}

/**
 * Lines, broken where a bucket has no value; a lone point is drawn as a dot.
 * @param {ChartInput} input
 */
export function lines(input) {
  const values = input.series.flatMap((entry) => entry.values.filter((value) => value !== null));
  const top = niceCeiling(Math.max(input.minMax ?? 1, ...values.map((value) => value ?? 0)));
  let points = 0;
  const chart = figure(
    input,
    (root, scale) => {
      for (const entry of input.series) {
        const centre = (/** @type {number} */ index) => scale.x(index + 0.5);
        let path = '';
        let previous = false;
        entry.values.forEach((value, index) => {
          if (value === null) {
            previous = false;
            return;
          }
          path += `${previous ? 'L' : 'M'}${centre(index).toFixed(1)},${scale.y(value).toFixed(1)}`;
          previous = true;
          points += 1;
          const dot = svg('circle', {
            cx: centre(index),
            cy: scale.y(value),
            r: 2.2,
            class: 'dot',
            style: `fill: ${entry.color}`,
          });
          dot.append(svgText('title', {}, `${entry.label}: ${input.format(value)}`));
          root.append(dot);
        });
        if (path === '') continue;
        root.append(
          svg('path', {
            d: path,
            class: entry.dashed === true ? 'line dashed' : 'line',
            style: `stroke: ${entry.color}`,
            'data-series': entry.label,
          }),
        );
      }
    },
    { top, empty: values.length === 0 },
  );
  chart.querySelector('svg')?.setAttribute('data-points', String(points));
  return chart;
}
