// The page around the 3D view: layout and style, playback controls, display checkboxes,
// magnification input, gauges, the plot's channel chooser, the pressure legend and error messages.
import { formatValue } from './plot.js';

const STYLE = `
html, body { margin: 0; height: 100%; font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; background: #eef0f2; }
#mbfmu-app { display: flex; flex-direction: column; height: 100%; }
#mbfmu-app.test { height: auto; }
.mb-head { padding: 6px 12px; background: #fff; border-bottom: 1px solid #d5d9dd; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mb-head b { font-size: 14px; }
.mb-main { flex: 1; display: flex; min-height: 0; }
.mb-viewwrap { position: relative; flex: 1; min-width: 0; }
.test .mb-viewwrap { flex: none; width: 800px; height: 600px; }
#mbfmu-view { display: block; width: 100%; height: 100%; outline: none; }
.mb-labels { position: absolute; inset: 0; pointer-events: none; overflow: hidden; }
.mb-labels span { position: absolute; transform: translate(-50%, -50%); font-size: 11px; background: rgba(255,255,255,0.75); padding: 0 3px; border-radius: 3px; white-space: nowrap; }
.mb-legend { position: absolute; left: 10px; bottom: 10px; background: rgba(255,255,255,0.85); padding: 4px 6px; border-radius: 4px; font-size: 11px; }
.mb-legend .bar { width: 140px; height: 8px; margin: 3px 0; background: linear-gradient(to right, hsl(240,85%,50%), hsl(180,85%,50%), hsl(120,85%,50%), hsl(60,85%,50%), hsl(0,85%,50%)); }
.mb-legend .ends { display: flex; justify-content: space-between; }
.mb-side { width: 360px; display: flex; flex-direction: column; border-left: 1px solid #d5d9dd; background: #fafbfc; min-height: 0; }
.test .mb-side { height: 600px; }
.mb-gauges { padding: 6px 10px; }
.mb-gauge { margin: 4px 0; }
.mb-gauge .top { display: flex; justify-content: space-between; font-size: 12px; }
.mb-gauge .track { position: relative; height: 10px; background: #e1e4e8; border-radius: 3px; overflow: hidden; }
.mb-gauge .fill { position: absolute; top: 0; bottom: 0; background: #2f7bd1; }
.mb-gauge .fill.out { background: #c9302c; }
.mb-gauge .zero { position: absolute; top: 0; bottom: 0; width: 1px; background: #777; }
.mb-plot { flex: 1; min-height: 160px; width: 100%; display: block; }
.mb-chooser { padding: 4px 10px 8px; border-top: 1px solid #e1e4e8; }
.mb-chooser input[type=search] { width: 100%; box-sizing: border-box; margin: 4px 0; }
.mb-chooser .list { max-height: 150px; overflow: auto; font-size: 12px; }
.mb-chooser label { display: block; white-space: nowrap; }
.mb-controls { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; padding: 6px 12px; background: #fff; border-top: 1px solid #d5d9dd; }
.mb-controls button { min-width: 64px; }
#mbfmu-time { flex: 1; min-width: 200px; }
.mb-readout { font-variant-numeric: tabular-nums; min-width: 130px; }
.mb-controls input[type=number] { width: 70px; }
#mbfmu-error { margin: 16px; padding: 12px 16px; border: 2px solid #c9302c; background: #fdecea; color: #7a1c19; border-radius: 6px; font-size: 14px; white-space: pre-wrap; }
`;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function addStyle() {
  if (!document.getElementById('mbfmu-style')) document.head.append(el('style', { id: 'mbfmu-style', text: STYLE }));
}

// A message above the page (fatal: in place of the player); also printed with console.error.
export function showError(message, fatal = true) {
  console.error(`mbfmu replay: ${message}`);
  addStyle();
  let box = document.getElementById('mbfmu-error');
  if (!box) {
    box = el('div', { id: 'mbfmu-error', role: 'alert' }, el('b', { text: 'Problems in the replay data:' }), '\n');
    document.body.prepend(box);
  }
  if (fatal) {
    box.firstChild.textContent = 'The replay cannot be shown.';
    const app = document.getElementById('mbfmu-app');
    if (app) app.remove();
  }
  box.append(message, '\n');
}

export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5];

export function buildPage(data, testMode) {
  addStyle();
  const app = el('div', { id: 'mbfmu-app', class: testMode ? 'test' : '' });
  const head = el('div', { class: 'mb-head' }, el('b', { text: data.model }), data.title ? ` — ${data.title}` : '');

  const canvas = el('canvas', { id: 'mbfmu-view', tabindex: '0' });
  const labels = el('div', { class: 'mb-labels' });
  const view = el('div', { class: 'mb-viewwrap' }, canvas, labels);
  if (data.pressureRange && data.links.some((l) => l.type === 'cylinder')) {
    const [lo, hi] = data.pressureRange;
    const bar = (p) => `${formatValue(p / 1e5)} bar`;
    view.append(el('div', { class: 'mb-legend' }, 'chamber pressure', el('div', { class: 'bar' }),
      el('div', { class: 'ends' }, el('span', { text: bar(lo) }), el('span', { text: bar(hi) }))));
  }

  const gaugesBox = el('div', { class: 'mb-gauges' });
  const plotCanvas = el('canvas', { class: 'mb-plot' });
  const filter = el('input', { type: 'search', placeholder: 'filter channels' });
  const list = el('div', { class: 'list' });
  const chooser = el('details', { class: 'mb-chooser' }, el('summary', { text: 'Plotted channels' }), filter, list);
  const side = el('div', { class: 'mb-side' }, gaugesBox, plotCanvas, chooser);

  const play = el('button', { type: 'button', id: 'mbfmu-play', text: '▶ Play' });
  const speed = el('select', { id: 'mbfmu-speed', title: 'playback speed' });
  for (const s of SPEEDS) speed.append(el('option', { value: String(s), text: `${s}×` }));
  speed.value = '1';
  const n = data.time.length;
  const slider = el('input', { type: 'range', id: 'mbfmu-time', min: '0', max: String(n - 1), step: '1', value: '0' });
  const readout = el('span', { class: 'mb-readout' });
  const box = (id, text, on) => {
    const c = el('input', { type: 'checkbox', id });
    c.checked = on;
    return [c, el('label', {}, c, ` ${text}`)];
  };
  const [frames, framesL] = box('mbfmu-frames', 'body frames', false);
  const [joints, jointsL] = box('mbfmu-joints', 'joints', true);
  const [labelsOn, labelsL] = box('mbfmu-labels', 'labels', false);
  const controls = el('div', { class: 'mb-controls' }, play, speed, slider, readout, framesL, jointsL, labelsL);
  let magnification = null;
  if (data.beams.length) {
    magnification = el('input', { type: 'number', id: 'mbfmu-magnification', min: '1', max: '1000', step: 'any', value: String(data.magnification) });
    controls.append(el('label', { title: 'magnification of the beams\' elastic deformation' }, 'deformation × ', magnification));
  }

  app.append(head, el('div', { class: 'mb-main' }, view, side), controls);
  document.body.append(app);

  const gauges = data.gauges.map((g) => {
    const fill = el('div', { class: 'fill' });
    const track = el('div', { class: 'track' }, fill);
    const value = el('span');
    const zeroAt = g.min < 0 && g.max > 0 ? -g.min / (g.max - g.min) : g.max <= 0 ? 1 : 0;
    if (zeroAt > 0 && zeroAt < 1) track.append(el('div', { class: 'zero', style: `left:${zeroAt * 100}%` }));
    gaugesBox.append(el('div', { class: 'mb-gauge' }, el('div', { class: 'top' }, el('span', { text: g.label }), value), track));
    return { g, fill, value, zeroAt };
  });

  return {
    app, canvas, labels, view, plotCanvas, filter, list, play, speed, slider, readout,
    frames, joints, labelsOn, magnification, gauges,
  };
}

// Sets each gauge's bar and value text.
export function updateGauges(gauges, valueOf) {
  for (const { g, fill, value, zeroAt } of gauges) {
    const v = valueOf(g.channel);
    const u = (v - g.min) / (g.max - g.min);
    const c = Math.min(Math.max(Number.isFinite(u) ? u : zeroAt, 0), 1);
    const a = Math.min(c, zeroAt);
    const b = Math.max(c, zeroAt);
    fill.style.left = `${a * 100}%`;
    fill.style.width = `${(b - a) * 100}%`;
    const out = !(u >= 0 && u <= 1);
    fill.classList.toggle('out', out);
    if (out) {
      // A stub at the end that the value passed.
      fill.style.left = c > 0.5 ? '97%' : '0%';
      fill.style.width = '3%';
    }
    value.textContent = `${formatValue(v)}${g.unit ? ` ${g.unit}` : ''}`;
  }
}

// Checkbox list of all channels, the plotted ones first and checked.
export function fillChooser(ui, data, chosen, onChange) {
  const names = [...data.channels.keys()];
  const order = [...chosen, ...names.filter((x) => !chosen.includes(x))];
  const boxes = [];
  ui.list.replaceChildren();
  for (const name of order) {
    const c = el('input', { type: 'checkbox', value: name });
    c.checked = chosen.includes(name);
    const unit = data.units[name];
    const label = el('label', {}, c, ` ${name}${unit ? ` [${unit}]` : ''}`);
    ui.list.append(label);
    boxes.push([c, label]);
  }
  ui.list.addEventListener('change', () => {
    const now = boxes.filter(([c]) => c.checked).map(([c]) => c.value);
    const kept = chosen.filter((x) => now.includes(x));
    chosen = [...kept, ...now.filter((x) => !kept.includes(x))];
    onChange(chosen);
  });
  ui.filter.addEventListener('input', () => {
    const f = ui.filter.value.toLowerCase();
    for (const [c, label] of boxes) label.style.display = !f || c.value.toLowerCase().includes(f) ? '' : 'none';
  });
}
