// tspipe's web console (docs/console.md): plain script over the public HTTP API, no library, no build step.
// Every panel asks the API with relative URLs (so the console works behind a proxy's path prefix) and the token
// the user gave (kept in localStorage). State a test can read is in data-* attributes: data-state="loading|ready|error"
// on each panel and on <body>, data-points and data-buckets on the chart's <svg>, data-cells on the heat map.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const MINUTE = 60000;
  const SPANS = { '15m': 15 * MINUTE, '1h': 60 * MINUTE, '6h': 360 * MINUTE, '24h': 1440 * MINUTE, '7d': 7 * 1440 * MINUTE };
  /** The heat map's windows: each node keeps the key space's counts of the last hour only. */
  const KEYSPACE_SPANS = { '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': 60 * MINUTE };
  const STEPS = { '1m': MINUTE, '1h': 60 * MINUTE, '1d': 1440 * MINUTE };
  /** Readings per request, and at most this many requests per chart (the API's limit is 10,000 a page). */
  const READINGS_PAGE = 1000;
  const READINGS_PAGES = 50;
  const ROLLUPS_PAGE = 10000;
  const ROLLUPS_PAGES = 5;
  const LATEST_POLL_MS = 5000;
  const KEYSPACE_POLL_MS = 60000;
  const SHOWN_CHOICES = 100;
  /** The key ranges per partition that the key-space endpoint takes at most. */
  const MAX_RANGES = 256;
  const STORAGE = { token: 'tspipe.console.token', tenant: 'tspipe.console.tenant' };

  const state = {
    token: '', tenant: '',
    device: '', metric: '',
    range: '1h', from: null, to: null,
    raw: null, rollup: 'auto',
    devices: [], metrics: [],
    keyspace: { metric: 'writes', span: '1h', ranges: 16, scale: 'log' },
  };
  /** The last data drawn, kept to draw again when the window is resized. */
  const drawn = { chart: null, heatmap: null };
  let chartGeneration = 0;
  let metricsGeneration = 0;

  // ---------------------------------------------------------------------------------------------
  // The API

  /** A failed call: the HTTP status (0 when there was no answer), the API's error code and its message. */
  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }

    toString() {
      return (this.status ? this.status + ' ' : '') + (this.code ? this.code + ': ' : '') + this.message
        + (this.status === 401 ? '\n(enter a token in the token field above)' : '');
    }
  }

  /** GETs a JSON answer; throws an ApiError with the API's message ({error, message}, or Prometheus' envelope). */
  async function api(path, params) {
    const url = new URL(path, document.baseURI);
    for (const [name, value] of Object.entries(params || {})) {
      if (value !== undefined && value !== null && value !== '') {
        url.searchParams.set(name, value);
      }
    }
    if (state.tenant) {
      url.searchParams.set('tenant', state.tenant);
    }
    const headers = { Accept: 'application/json' };
    if (state.token) {
      headers.Authorization = 'Bearer ' + state.token;
    }
    let response;
    try {
      response = await fetch(url, { headers, cache: 'no-store' });
    } catch (failure) {
      throw new ApiError(0, 'no-answer', 'GET ' + url.pathname + ' got no answer (' + failure.message + ')');
    }
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch (notJson) {
      body = null;
    }
    if (!response.ok) {
      if (body && typeof body.message === 'string') {
        throw new ApiError(response.status, body.error, body.message);
      }
      if (body && typeof body.error === 'string') {
        throw new ApiError(response.status, body.errorType, body.error);
      }
      throw new ApiError(response.status, 'http', 'GET ' + url.pathname + ' answered ' + response.status + ' '
        + response.statusText);
    }
    if (body === null) {
      throw new ApiError(response.status, 'not-json', 'GET ' + url.pathname + ' did not answer JSON');
    }
    return body;
  }

  const seg = encodeURIComponent;

  function seriesPath(what) {
    return 'api/v1/series/' + seg(state.device) + '/' + seg(state.metric) + '/' + what;
  }

  /** Every row of a paged answer, following nextCursor; null when a newer request replaced this one. */
  async function allPages(path, params, rowsKey, maxPages, generation) {
    const rows = [];
    let cursor = null;
    let pages = 0;
    do {
      const body = await api(path, Object.assign({}, params, cursor ? { cursor } : {}));
      if (generation !== chartGeneration) {
        return null;
      }
      for (const row of body[rowsKey]) {
        rows.push(row);
      }
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < maxPages);
    return { rows, truncated: Boolean(cursor) };
  }

  // ---------------------------------------------------------------------------------------------
  // Formatting

  function utc(ms, precision) {
    const iso = new Date(ms).toISOString();
    if (precision === 'minute') {
      return iso.slice(0, 16).replace('T', ' ') + 'Z';
    }
    return iso.slice(0, 19).replace('T', ' ') + (iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23)) + 'Z';
  }

  function number(v) {
    if (!Number.isFinite(v)) {
      return String(v);
    }
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e9 || a < 1e-3)) {
      return v.toExponential(3);
    }
    return Number(v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });
  }

  function count(n) {
    return Number(n).toLocaleString('en-US');
  }

  function bytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Number(n);
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (u === 0 ? v : v.toFixed(1)) + ' ' + units[u];
  }

  function ago(ms) {
    const s = Math.round((Date.now() - ms) / 1000);
    if (s < 0) {
      return 'in the future';
    }
    if (s < 120) {
      return s + ' s ago';
    }
    if (s < 7200) {
      return Math.round(s / 60) + ' min ago';
    }
    if (s < 172800) {
      return Math.round(s / 3600) + ' h ago';
    }
    return Math.round(s / 86400) + ' days ago';
  }

  /** Epoch milliseconds or an ISO-8601 instant, as the API takes them; NaN otherwise. */
  function parseTime(text) {
    const t = String(text).trim();
    if (/^-?\d+$/.test(t)) {
      return Number(t);
    }
    return t === '' ? NaN : Date.parse(t);
  }

  function showError(id, error) {
    const element = $(id);
    if (error) {
      element.textContent = String(error);
      element.hidden = false;
    } else {
      element.textContent = '';
      element.hidden = true;
    }
  }

  function svg(name, attributes, parent) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) {
      element.setAttribute(key, value);
    }
    if (parent) {
      parent.appendChild(element);
    }
    return element;
  }

  // ---------------------------------------------------------------------------------------------
  // The selection, and the URL that holds it (?device=&metric=&range= or &from=&to=, &raw=, &rollup=)

  function readUrl() {
    const q = new URLSearchParams(location.search);
    state.device = q.get('device') || '';
    state.metric = q.get('metric') || '';
    if (q.has('range') && SPANS[q.get('range')]) {
      state.range = q.get('range');
    }
    if (q.has('from') && q.has('to')) {
      state.from = q.get('from');
      state.to = q.get('to');
    }
    if (q.has('raw')) {
      state.raw = q.get('raw') !== '0';
    }
    if (['auto', 'none', '1m', '1h', '1d'].includes(q.get('rollup'))) {
      state.rollup = q.get('rollup');
    }
    const ks = state.keyspace;
    if (['writes', 'reads', 'bytes'].includes(q.get('keyspace'))) {
      ks.metric = q.get('keyspace');
    }
    if (KEYSPACE_SPANS[q.get('kspan')]) {
      ks.span = q.get('kspan');
    }
    if (/^\d+$/.test(q.get('kranges') || '')) {
      ks.ranges = Math.max(1, Math.min(MAX_RANGES, Number(q.get('kranges'))));
    }
    if (['log', 'linear'].includes(q.get('kscale'))) {
      ks.scale = q.get('kscale');
    }
  }

  function writeUrl() {
    const q = new URLSearchParams();
    if (state.device) {
      q.set('device', state.device);
    }
    if (state.metric) {
      q.set('metric', state.metric);
    }
    if (state.from !== null) {
      q.set('from', state.from);
      q.set('to', state.to);
    } else {
      q.set('range', state.range);
    }
    if (state.raw !== null) {
      q.set('raw', state.raw ? '1' : '0');
    }
    q.set('rollup', state.rollup);
    const ks = state.keyspace;
    q.set('keyspace', ks.metric);
    q.set('kspan', ks.span);
    q.set('kranges', ks.ranges);
    q.set('kscale', ks.scale);
    history.replaceState(null, '', '?' + q.toString());
  }

  /** The chart's window [from, to) in epoch ms; a preset ends now. */
  function chartWindow() {
    if (state.from !== null) {
      const from = parseTime(state.from);
      const to = parseTime(state.to);
      if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) {
        throw new ApiError(0, 'bad-window', 'from and to must be epoch milliseconds or ISO-8601 instants, from before to');
      }
      return { from, to };
    }
    const to = Date.now();
    return { from: to - SPANS[state.range], to };
  }

  /** The rollup step drawn: as chosen, or by the window's length (about 15 to 1,400 buckets). */
  function rollupStep(win) {
    if (state.rollup !== 'auto') {
      return state.rollup === 'none' ? null : state.rollup;
    }
    const span = win.to - win.from;
    return span <= 24 * 60 * MINUTE ? '1m' : span <= 60 * 1440 * MINUTE ? '1h' : '1d';
  }

  /** Raw readings are drawn as chosen, else for windows of a day at most. */
  function rawShown(win) {
    return state.raw !== null ? state.raw : win.to - win.from <= 1440 * MINUTE;
  }

  function showSelection() {
    $('device').value = state.device;
    $('metric').value = state.metric;
    $('from').value = state.from !== null ? state.from : '';
    $('to').value = state.to !== null ? state.to : '';
    for (const button of document.querySelectorAll('[data-range]')) {
      button.setAttribute('aria-pressed', String(state.from === null && button.dataset.range === state.range));
    }
    $('rollup').value = state.rollup;
    let win = null;
    try {
      win = chartWindow();
    } catch (bad) {
      win = null;
    }
    $('raw').checked = win ? rawShown(win) : state.raw !== false;
  }

  // ---------------------------------------------------------------------------------------------
  // Device and metric pickers: search as you type over lists fetched once

  function picker(inputId, listId, items, describe, choose) {
    const input = $(inputId);
    const list = $(listId);
    let active = -1;

    function matches() {
      const needle = input.value.trim().toLowerCase();
      return items().filter((item) => item.name.toLowerCase().includes(needle));
    }

    function render() {
      const found = matches();
      list.replaceChildren();
      found.slice(0, SHOWN_CHOICES).forEach((item, i) => {
        const li = document.createElement('li');
        li.dataset.name = item.name;
        li.classList.toggle('active', i === active);
        const name = document.createElement('span');
        name.textContent = item.name;
        li.appendChild(name);
        const detail = describe(item);
        if (detail) {
          const extra = document.createElement('span');
          extra.className = 'muted';
          extra.textContent = detail;
          li.appendChild(extra);
        }
        li.addEventListener('mousedown', (event) => {
          event.preventDefault();
          pick(item.name);
        });
        list.appendChild(li);
      });
      if (found.length > SHOWN_CHOICES) {
        const more = document.createElement('li');
        more.className = 'muted';
        more.textContent = (found.length - SHOWN_CHOICES) + ' more: type to narrow';
        list.appendChild(more);
      }
      list.dataset.count = String(found.length);
      list.hidden = document.activeElement !== input || found.length === 0;
      return found;
    }

    function pick(name) {
      input.value = name;
      list.hidden = true;
      active = -1;
      choose(name);
    }

    input.addEventListener('input', () => {
      active = -1;
      render();
    });
    input.addEventListener('focus', render);
    input.addEventListener('blur', () => {
      list.hidden = true;
    });
    input.addEventListener('keydown', (event) => {
      const found = matches().slice(0, SHOWN_CHOICES);
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        active = Math.max(0, Math.min(found.length - 1, active + (event.key === 'ArrowDown' ? 1 : -1)));
        render();
      } else if (event.key === 'Enter') {
        event.preventDefault();
        const exact = found.find((item) => item.name === input.value.trim());
        const chosen = active >= 0 ? found[active] : exact || found[0];
        if (chosen) {
          pick(chosen.name);
        }
      } else if (event.key === 'Escape') {
        list.hidden = true;
      }
    });
    return { render };
  }

  async function loadDevices() {
    try {
      const body = await api('prometheus/api/v1/label/device/values');
      state.devices = body.data.map((name) => ({ name }));
      $('device-list').dataset.count = String(state.devices.length);
      $('device').placeholder = 'search ' + count(state.devices.length) + ' devices';
      showError('pick-error', null);
    } catch (error) {
      showError('pick-error', 'devices: ' + error);
      throw error;
    }
  }

  async function loadMetrics() {
    const generation = ++metricsGeneration;
    state.metrics = [];
    if (!state.device) {
      return;
    }
    try {
      const body = await api('api/v1/devices/' + seg(state.device) + '/metrics');
      if (generation === metricsGeneration) {
        state.metrics = body.metrics.map((m) => ({ name: m.metric, latest: m.latest }));
        $('metric').placeholder = 'search ' + count(state.metrics.length) + ' metrics';
        showError('pick-error', null);
      }
    } catch (error) {
      showError('pick-error', 'metrics of ' + state.device + ': ' + error);
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The latest value, polled

  async function pollLatest() {
    const panel = $('latest');
    if (!state.device || !state.metric) {
      panel.dataset.state = 'idle';
      $('latest-value').textContent = '–';
      $('latest-time').textContent = '';
      return;
    }
    const asked = seriesPath('latest');
    try {
      const body = await api(asked);
      if (asked !== seriesPath('latest')) {
        return;
      }
      $('latest-value').textContent = number(body.value);
      $('latest-time').textContent = utc(body.timestamp) + ' (' + ago(body.timestamp) + ')';
      panel.dataset.timestamp = String(body.timestamp);
      panel.dataset.value = String(body.value);
      panel.dataset.state = 'ready';
      showError('latest-error', null);
    } catch (error) {
      panel.dataset.state = 'error';
      showError('latest-error', error);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The chart: raw readings as a line, rollups as a min/max band with the mean

  async function loadChart() {
    const generation = ++chartGeneration;
    const box = $('chart');
    if (!state.device || !state.metric) {
      box.dataset.state = 'idle';
      $('chart-title').textContent = 'series: pick a device and a metric';
      $('chart-note').textContent = '';
      drawn.chart = null;
      drawChart();
      return;
    }
    box.dataset.state = 'loading';
    $('chart-title').textContent = state.device + ' / ' + state.metric;
    try {
      const win = chartWindow();
      const step = rollupStep(win);
      const range = { from: win.from, to: win.to, order: 'asc' };
      const [raw, rollups] = await Promise.all([
        rawShown(win) ? allPages(seriesPath('readings'), Object.assign({ limit: READINGS_PAGE }, range), 'readings',
          READINGS_PAGES, generation) : { rows: [], truncated: false },
        step ? allPages(seriesPath('rollups'), Object.assign({ step, limit: ROLLUPS_PAGE }, range), 'buckets',
          ROLLUPS_PAGES, generation) : { rows: [], truncated: false },
      ]);
      if (raw === null || rollups === null) {
        return;
      }
      drawn.chart = { win, step, raw: raw.rows, buckets: rollups.rows };
      drawChart();
      const notes = [utc(win.from) + ' to ' + utc(win.to) + ': ' + count(raw.rows.length) + ' readings'
        + (step ? ', ' + count(rollups.rows.length) + ' ' + step + ' rollups (band: min to max, line: mean)' : '')];
      if (raw.truncated) {
        notes.push('only the first ' + count(raw.rows.length) + ' readings are drawn: narrow the window or use rollups only');
      }
      if (rollups.truncated) {
        notes.push('only the first ' + count(rollups.rows.length) + ' buckets are drawn: choose a coarser step');
      }
      $('chart-note').textContent = notes.join('; ');
      box.dataset.state = 'ready';
      showError('chart-error', null);
    } catch (error) {
      if (generation === chartGeneration) {
        box.dataset.state = 'error';
        drawn.chart = null;
        drawChart();
        showError('chart-error', error);
      }
    }
  }

  /** About `wanted` round time steps (UTC-aligned) between from and to. */
  function timeTicks(from, to, wanted) {
    const candidates = [1, 2, 5, 10, 15, 30].map((s) => s * 1000)
      .concat([1, 2, 5, 10, 15, 30].map((m) => m * MINUTE))
      .concat([1, 2, 3, 6, 12].map((h) => h * 60 * MINUTE))
      .concat([1, 2, 7, 14, 30, 90, 365].map((d) => d * 1440 * MINUTE));
    const step = candidates.find((c) => (to - from) / c <= wanted) || candidates[candidates.length - 1];
    const ticks = [];
    for (let t = Math.ceil(from / step) * step; t < to; t += step) {
      ticks.push(t);
    }
    return { ticks, step };
  }

  function valueTicks(lo, hi, wanted) {
    const rough = (hi - lo) / wanted;
    const magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
    const n = rough / magnitude;
    const step = (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * magnitude;
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return ticks;
  }

  function tickLabel(t, step, span) {
    const iso = new Date(t).toISOString();
    if (span > 2 * 1440 * MINUTE) {
      return iso.slice(5, 10) + (step < 1440 * MINUTE ? ' ' + iso.slice(11, 16) : '');
    }
    return step < MINUTE ? iso.slice(11, 19) : iso.slice(11, 16);
  }

  function drawChart() {
    const chart = $('chart-svg');
    const data = drawn.chart;
    chart.replaceChildren();
    if (!data) {
      chart.dataset.points = '0';
      chart.dataset.buckets = '0';
      return;
    }
    const width = chart.clientWidth || 900;
    const height = chart.clientHeight || 320;
    chart.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    const m = { left: 64, right: 12, top: 10, bottom: 24 };
    const plotW = width - m.left - m.right;
    const plotH = height - m.top - m.bottom;
    const { from, to } = data.win;
    const stepMs = data.step ? STEPS[data.step] : 0;
    const raw = data.raw.filter((r) => Number.isFinite(r.value));
    const buckets = data.buckets.filter((b) => Number.isFinite(b.min) && Number.isFinite(b.max));
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of raw) {
      lo = Math.min(lo, r.value);
      hi = Math.max(hi, r.value);
    }
    for (const b of buckets) {
      lo = Math.min(lo, b.min);
      hi = Math.max(hi, b.max);
    }
    if (!Number.isFinite(lo)) {
      lo = 0;
      hi = 1;
    } else if (lo === hi) {
      const pad = Math.abs(lo) * 0.05 || 1;
      lo -= pad;
      hi += pad;
    } else {
      const pad = (hi - lo) * 0.05;
      lo -= pad;
      hi += pad;
    }
    const x = (t) => m.left + ((t - from) / (to - from)) * plotW;
    const y = (v) => m.top + (1 - (v - lo) / (hi - lo)) * plotH;
    const clampX = (t) => Math.max(m.left, Math.min(m.left + plotW, x(t)));

    const axes = svg('g', {}, chart);
    for (const v of valueTicks(lo, hi, 5)) {
      svg('line', { class: 'axis', x1: m.left, x2: m.left + plotW, y1: y(v), y2: y(v) }, axes);
      svg('text', { class: 'tick', x: m.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, axes).textContent = number(v);
    }
    const time = timeTicks(from, to, Math.max(2, Math.floor(plotW / 90)));
    for (const t of time.ticks) {
      svg('line', { class: 'axis', x1: x(t), x2: x(t), y1: m.top, y2: m.top + plotH }, axes);
      svg('text', { class: 'tick', x: x(t), y: height - 6, 'text-anchor': 'middle' }, axes).textContent =
        tickLabel(t, time.step, to - from);
    }

    // Rollups: a band from min to max over each bucket's span, and the mean; a gap between buckets breaks both.
    if (buckets.length > 0) {
      const segments = [];
      let current = [];
      for (const b of buckets) {
        if (current.length > 0 && b.start !== current[current.length - 1].start + stepMs) {
          segments.push(current);
          current = [];
        }
        current.push(b);
      }
      segments.push(current);
      for (const segment of segments) {
        const top = [];
        const bottom = [];
        const mean = [];
        for (const b of segment) {
          const x0 = clampX(b.start).toFixed(1);
          const x1 = clampX(b.start + stepMs).toFixed(1);
          top.push(x0 + ',' + y(b.max).toFixed(1), x1 + ',' + y(b.max).toFixed(1));
          bottom.unshift(x1 + ',' + y(b.min).toFixed(1), x0 + ',' + y(b.min).toFixed(1));
          mean.push(clampX(b.start + stepMs / 2).toFixed(1) + ',' + y(b.mean).toFixed(1));
        }
        svg('polygon', { class: 'band', points: top.concat(bottom).join(' ') }, chart);
        svg(segment.length > 1 ? 'polyline' : 'circle', segment.length > 1
          ? { class: 'mean', points: mean.join(' ') }
          : { class: 'dot', cx: mean[0].split(',')[0], cy: mean[0].split(',')[1], r: 2 }, chart);
      }
    }
    if (raw.length > 0) {
      // A gap of more than ten times the usual spacing (a device that was off) breaks the line.
      const gaps = raw.slice(1).map((r, i) => r.timestamp - raw[i].timestamp).sort((a, b) => a - b);
      const usual = gaps.length > 0 ? gaps[gaps.length >> 1] : 0;
      const d = raw.map((r, i) => (i === 0 || (usual > 0 && r.timestamp - raw[i - 1].timestamp > 10 * usual) ? 'M' : 'L')
        + x(r.timestamp).toFixed(1) + ' ' + y(r.value).toFixed(1)).join('');
      svg('path', { class: 'raw', d }, chart);
      if (raw.length <= plotW / 6) {
        const dots = svg('g', {}, chart);
        for (const r of raw) {
          svg('circle', { class: 'dot', cx: x(r.timestamp).toFixed(1), cy: y(r.value).toFixed(1), r: 2 }, dots);
        }
      }
    }
    chart.dataset.points = String(data.raw.length);
    chart.dataset.buckets = String(data.buckets.length);

    const cursor = svg('line', { class: 'cursor', y1: m.top, y2: m.top + plotH, visibility: 'hidden' }, chart);
    const hover = svg('rect', { x: m.left, y: m.top, width: plotW, height: plotH, fill: 'transparent' }, chart);
    const tip = $('chart-tip');
    hover.addEventListener('mousemove', (event) => {
      const box = chart.getBoundingClientRect();
      const px = (event.clientX - box.left) * (width / box.width);
      const t = from + ((px - m.left) / plotW) * (to - from);
      const lines = [utc(t)];
      const reading = nearest(data.raw, t, (r) => r.timestamp);
      if (reading) {
        lines[0] = utc(reading.timestamp);
        lines.push('value ' + number(reading.value));
      }
      const bucket = data.buckets.find((b) => b.start <= t && t < b.start + stepMs);
      if (bucket) {
        lines.push(data.step + ' from ' + utc(bucket.start, 'minute') + ': min ' + number(bucket.min) + ', mean '
          + number(bucket.mean) + ', max ' + number(bucket.max) + ', ' + count(bucket.count) + ' readings');
      }
      const at = reading ? x(reading.timestamp) : px;
      cursor.setAttribute('x1', at);
      cursor.setAttribute('x2', at);
      cursor.setAttribute('visibility', 'visible');
      tip.textContent = lines.join('\n');
      tip.hidden = false;
      placeTip(tip, event, $('chart'));
    });
    hover.addEventListener('mouseleave', () => {
      cursor.setAttribute('visibility', 'hidden');
      tip.hidden = true;
    });
  }

  /** The row of a list sorted by key whose key is nearest to t. */
  function nearest(rows, t, key) {
    if (rows.length === 0) {
      return null;
    }
    let lo = 0;
    let hi = rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(rows[mid]) < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo > 0 && Math.abs(key(rows[lo - 1]) - t) <= Math.abs(key(rows[lo]) - t)) {
      return rows[lo - 1];
    }
    return rows[lo];
  }

  function placeTip(tip, event, container) {
    const box = container.getBoundingClientRect();
    let left = event.clientX - box.left + 14;
    if (left + tip.offsetWidth > box.width) {
      left = event.clientX - box.left - tip.offsetWidth - 14;
    }
    tip.style.left = Math.max(0, left) + 'px';
    tip.style.top = Math.max(0, event.clientY - box.top + 14) + 'px';
  }

  // ---------------------------------------------------------------------------------------------
  // Partition statistics

  async function loadPartitions() {
    const panel = $('partitions');
    panel.dataset.state = 'loading';
    try {
      const body = await api('api/v1/stats/partitions');
      const rows = body.partitions.map((p) => {
        const store = (name) => (p.stores && p.stores[name]) || { rows: 0, bytes: 0, segments: [] };
        const raw = store('raw-rows');
        const oldest = raw.segments.length > 0 ? Math.min(...raw.segments.map((s) => s.startMillis)) : null;
        const devices = p.devices || { top: [], overGuideline: [] };
        const largest = devices.top && devices.top.length > 0 ? devices.top[0] : null;
        const over = devices.overGuideline || [];
        const cells = [p.partition, p.owner, count(raw.rows), bytes(raw.bytes), count(store('rollups-1m').rows),
          count(store('rollups-1h').rows), count(store('rollups-1d').rows), count(store('latest').rows),
          count(raw.segments.length), oldest === null ? '–' : utc(oldest, 'minute'),
          devices.count === undefined ? '–' : count(devices.count),
          largest ? largest.device + ' (' + bytes(largest.estimatedBytes) + ')' : '–',
          over.length === 0 ? 'none' : over.map((d) => d.device).slice(0, 3).join(', ')
            + (over.length > 3 ? ' and ' + (over.length - 3) + ' more' : '')];
        const tr = document.createElement('tr');
        for (const cell of cells) {
          const td = document.createElement('td');
          td.textContent = String(cell);
          tr.appendChild(td);
        }
        return tr;
      });
      $('partitions-body').replaceChildren(...rows);
      $('instances').textContent = 'instances: ' + body.instances
        .map((i) => i.host + (i.reachable ? '' : ' (did not answer: its partitions are missing)')).join(', ');
      panel.dataset.rows = String(rows.length);
      panel.dataset.state = 'ready';
      showError('partitions-error', null);
    } catch (error) {
      panel.dataset.state = 'error';
      showError('partitions-error', error);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The key-space heat map: time on X, key ranges on Y (ordered by partition, then key), darker = hotter

  async function loadKeyspace() {
    const panel = $('heatmap');
    const ks = state.keyspace;
    panel.dataset.state = 'loading';
    try {
      const to = Math.floor(Date.now() / MINUTE) * MINUTE + MINUTE;
      const body = await api('api/v1/stats/keyspace', {
        from: to - KEYSPACE_SPANS[ks.span], to, metric: ks.metric, ranges: ks.ranges,
      });
      drawn.heatmap = body;
      drawHeatmap();
      const hottest = body.hottest.map((h) => {
        const li = document.createElement('li');
        li.textContent = rangeName(h) + ' (partition ' + h.partition + '): ' + count(h.total) + ' ' + body.metric;
        return li;
      });
      $('hottest').replaceChildren(...hottest);
      panel.dataset.missing = body.missing.join(',');
      panel.dataset.state = 'ready';
      const unreachable = (body.instances || []).filter((i) => !i.reachable).map((i) => i.host);
      showError('heatmap-error', body.missing.length > 0 ? 'partitions ' + body.missing.join(', ')
        + ' did not answer (their owner is down or moving): their ranges are missing'
        + (unreachable.length > 0 ? '; instances that did not answer: ' + unreachable.join(', ') : '') : null);
    } catch (error) {
      drawn.heatmap = null;
      drawHeatmap();
      $('hottest').replaceChildren();
      panel.dataset.state = 'error';
      showError('heatmap-error', error);
    }
  }

  /** A key range by its first and last device. */
  function rangeName(range) {
    return range.firstDevice === range.lastDevice ? range.firstDevice : range.firstDevice + ' … ' + range.lastDevice;
  }

  /** From near white (0) to dark blue (1): darker is hotter. */
  function heat(fraction) {
    const light = [239, 245, 251];
    const dark = [8, 37, 94];
    const f = Math.max(0, Math.min(1, fraction));
    return 'rgb(' + light.map((c, i) => Math.round(c + (dark[i] - c) * f)).join(',') + ')';
  }

  function drawHeatmap() {
    const canvas = $('heatmap-canvas');
    const panel = $('heatmap');
    const data = drawn.heatmap;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || 900;
    const height = canvas.clientHeight || 320;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    canvas.onmousemove = null;
    canvas.onmouseleave = null;
    $('heatmap-tip').hidden = true;
    if (!data) {
      panel.dataset.cells = '0';
      $('heatmap-legend').textContent = '';
      return;
    }
    const m = { left: 44, right: 8, top: 4, bottom: 22 };
    const plotW = width - m.left - m.right;
    const plotH = height - m.top - m.bottom;
    const columns = data.minutes.length;
    const rows = data.ranges.length;
    const log = state.keyspace.scale === 'log';
    const scale = (v) => (data.max <= 0 ? 0 : log ? Math.log1p(v) / Math.log1p(data.max) : v / data.max);
    const cellW = plotW / Math.max(1, columns);
    const cellH = plotH / Math.max(1, rows);
    g.fillStyle = '#fff';
    g.fillRect(m.left, m.top, plotW, plotH);
    let cells = 0;
    data.ranges.forEach((range, r) => {
      range.values.forEach((v, c) => {
        if (v > 0) {
          g.fillStyle = heat(0.08 + 0.92 * scale(v));
          // Cells overlap by a fraction of a pixel so that no white seam shows between them.
          g.fillRect(m.left + c * cellW, m.top + r * cellH, cellW + 0.5, cellH + 0.5);
          cells++;
        }
      });
    });
    // Partition boundaries, and each partition's number on the left.
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    let start = 0;
    for (let r = 0; r <= rows; r++) {
      if (r === rows || (r > 0 && data.ranges[r].partition !== data.ranges[r - 1].partition)) {
        g.fillStyle = '#66707c';
        g.fillText('p' + data.ranges[start].partition, m.left - 6, m.top + ((start + r) / 2) * cellH);
        if (r < rows) {
          g.fillStyle = '#d2691e';
          g.fillRect(m.left, m.top + r * cellH - 0.5, plotW, 1);
        }
        start = r;
      }
    }
    g.strokeStyle = '#d9dee4';
    g.strokeRect(m.left + 0.5, m.top + 0.5, plotW - 1, plotH - 1);
    if (columns > 0) {
      const from = data.minutes[0];
      const to = data.minutes[columns - 1] + data.minuteMs;
      const time = timeTicks(from, to, Math.max(2, Math.floor(plotW / 90)));
      g.fillStyle = '#66707c';
      g.textAlign = 'center';
      g.textBaseline = 'alphabetic';
      for (const t of time.ticks) {
        const x = m.left + ((t - from) / (to - from)) * plotW;
        g.fillRect(x, m.top + plotH, 1, 4);
        g.fillText(tickLabel(t, time.step, to - from), x, height - 6);
      }
    }
    panel.dataset.cells = String(cells);
    $('heatmap-legend').textContent = rows + ' key ranges (at most ' + state.keyspace.ranges + ' per partition) × '
      + columns + ' minutes; colour: ' + (data.metric === 'bytes' ? 'bytes written and read' : data.metric)
      + ' per minute, ' + (log ? 'log scale (log(1 + v) / log(1 + max))' : 'linear scale (v / max)')
      + ', darkest = ' + count(data.max) + '; white = none; orange lines: partition boundaries';

    const tip = $('heatmap-tip');
    canvas.onmousemove = (event) => {
      const box = canvas.getBoundingClientRect();
      const c = Math.floor(((event.clientX - box.left) * (width / box.width) - m.left) / cellW);
      const r = Math.floor(((event.clientY - box.top) * (height / box.height) - m.top) / cellH);
      if (c < 0 || c >= columns || r < 0 || r >= rows) {
        tip.hidden = true;
        return;
      }
      const range = data.ranges[r];
      tip.textContent = rangeName(range) + '\npartition ' + range.partition + ', '
        + count(range.devices) + ' devices\n' + utc(data.minutes[c], 'minute') + ': ' + count(range.values[c]) + ' '
        + data.metric + ' (range total ' + count(range.total) + ')';
      tip.hidden = false;
      placeTip(tip, event, panel);
    };
    canvas.onmouseleave = () => {
      tip.hidden = true;
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Wiring

  function storage(key, value) {
    try {
      if (value === undefined) {
        return localStorage.getItem(key) || '';
      }
      if (value) {
        localStorage.setItem(key, value);
      } else {
        localStorage.removeItem(key);
      }
    } catch (unavailable) {
      // A browser that refuses storage (a private mode, a file: page) keeps the token for this page only.
    }
    return value || '';
  }

  function selectionChanged() {
    writeUrl();
    showSelection();
    pollLatest();
    return loadChart();
  }

  function reloadAll() {
    const settled = Promise.allSettled([
      loadDevices(),
      loadMetrics(),
      selectionChanged(),
      loadPartitions(),
      loadKeyspace(),
    ]);
    return settled;
  }

  function start() {
    readUrl();
    state.token = storage(STORAGE.token);
    state.tenant = storage(STORAGE.tenant);
    $('token').value = state.token;
    $('tenant').value = state.tenant;
    $('node').textContent = location.host;
    const ks = state.keyspace;
    $('ks-metric').value = ks.metric;
    $('ks-span').value = ks.span;
    $('ks-ranges').value = ks.ranges;
    $('ks-scale').value = ks.scale;

    picker('device', 'device-list', () => state.devices, () => '', (name) => {
      state.device = name;
      loadMetrics().then(() => {
        if (!state.metrics.some((m) => m.name === state.metric)) {
          state.metric = state.metrics.length === 1 ? state.metrics[0].name : '';
        }
        selectionChanged();
        if (!state.metric) {
          $('metric').focus();
        }
      }, () => selectionChanged());
    });
    picker('metric', 'metric-list', () => state.metrics,
      (m) => (m.latest ? number(m.latest.value) + ' · ' + ago(m.latest.timestamp) : ''), (name) => {
        state.metric = name;
        selectionChanged();
      });
    for (const button of document.querySelectorAll('[data-range]')) {
      button.addEventListener('click', () => {
        state.range = button.dataset.range;
        state.from = null;
        state.to = null;
        selectionChanged();
      });
    }
    $('window').addEventListener('submit', (event) => {
      event.preventDefault();
      const from = $('from').value.trim();
      const to = $('to').value.trim();
      state.from = from || to ? from : null;
      state.to = from || to ? to : null;
      selectionChanged();
    });
    $('raw').addEventListener('change', () => {
      state.raw = $('raw').checked;
      selectionChanged();
    });
    $('rollup').addEventListener('change', () => {
      state.rollup = $('rollup').value;
      selectionChanged();
    });
    $('auth').addEventListener('submit', (event) => {
      event.preventDefault();
      state.token = storage(STORAGE.token, $('token').value.trim());
      state.tenant = storage(STORAGE.tenant, $('tenant').value.trim());
      reloadAll();
    });
    $('keyspace-controls').addEventListener('submit', (event) => {
      event.preventDefault();
      ks.ranges = Math.max(1, Math.min(MAX_RANGES, Number($('ks-ranges').value) || 16));
      $('ks-ranges').value = ks.ranges;
      writeUrl();
      loadKeyspace();
    });
    for (const [id, key] of [['ks-metric', 'metric'], ['ks-span', 'span'], ['ks-scale', 'scale']]) {
      $(id).addEventListener('change', () => {
        ks[key] = $(id).value;
        writeUrl();
        if (key === 'scale') {
          drawHeatmap();
        } else {
          loadKeyspace();
        }
      });
    }
    $('stats-refresh').addEventListener('click', loadPartitions);
    let resizing = 0;
    window.addEventListener('resize', () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => {
        drawChart();
        drawHeatmap();
      }, 150);
    });

    reloadAll().then((results) => {
      document.body.dataset.state = results.some((r) => r.status === 'rejected')
        || document.querySelector('[data-state="error"]') ? 'error' : 'ready';
    });
    setInterval(pollLatest, LATEST_POLL_MS);
    setInterval(loadKeyspace, KEYSPACE_POLL_MS);
  }

  start();
}());
