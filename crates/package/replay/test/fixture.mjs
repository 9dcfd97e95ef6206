// Writes a replay page (the same HTML shape as `mbfmu simulate --animate`) from a synthetic scene:
// a planar double pendulum with two revolute joints, a spring, a hydraulic cylinder with chamber
// pressures, a five-node beam bending at its middle node, two gauges and two plots, 2 s at 100 samples.
//
//   node test/fixture.mjs OUT.html [--variant ok|oblique|broken-json|missing-channel|no-data] [--bundle dist/replay.js]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const out = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
if (!out) {
  console.error('usage: node fixture.mjs OUT.html [--variant ok|oblique|broken-json|missing-channel|no-data] [--bundle PATH]');
  process.exit(2);
}
const variant = opt('--variant', 'ok');
const bundle = readFileSync(opt('--bundle', join(here, '..', 'dist', 'replay.js')), 'utf8');

const N = 100;
const T = 2;
const time = Array.from({ length: N }, (_, i) => (T * i) / (N - 1));
const channels = {};
const units = {};
const put = (name, unit, f) => {
  channels[name] = time.map(f);
  units[name] = unit;
};

// Rotation about y by angle a: quaternion (e0 scalar) and the image of a point.
const qy = (a) => [Math.cos(a / 2), 0, Math.sin(a / 2), 0];
const roty = (a, [x, y, z]) => [Math.cos(a) * x + Math.sin(a) * z, y, -Math.sin(a) * x + Math.cos(a) * z];
const add = (p, q) => p.map((v, i) => v + q[i]);

const L1 = 1.0;
const L2 = 0.8;
const th1 = (t) => 0.6 * Math.sin(Math.PI * t);
const th2 = (t) => th1(t) + 0.8 * Math.sin(2 * Math.PI * 0.9 * t + 0.5);
const c1 = (t) => roty(th1(t), [0, 0, -L1 / 2]);
const elbow = (t) => roty(th1(t), [0, 0, -L1]);
const c2 = (t) => add(elbow(t), roty(th2(t), [0, 0, -L2 / 2]));

const frames = [{ name: 'ground' }];
const bodyFrame = (name, pos, ang) => {
  ['x', 'y', 'z'].forEach((c, j) => put(`${name}.position.${c}`, 'm', (t) => pos(t)[j]));
  [0, 1, 2, 3].forEach((j) => put(`${name}.orientation.e${j}`, '', (t) => qy(ang(t))[j]));
  put(`${name}.angle`, 'rad', ang);
  frames.push({
    name,
    kind: 'body',
    position: ['x', 'y', 'z'].map((c) => `${name}.position.${c}`),
    orientation: [0, 1, 2, 3].map((j) => `${name}.orientation.e${j}`),
  });
  return frames.length - 1;
};
const upper = bodyFrame('upper', c1, th1);
const lower = bodyFrame('lower', c2, th2);

// Beam: five nodes from (1.4, 0, -0.4), pivoting about its first node and bending.
const beamNodes = [];
const pivot = [1.4, 0, -0.4];
const phi = (t) => 0.15 * Math.sin(Math.PI * t);
const bend = (t) => 0.012 * Math.sin(2 * Math.PI * 1.5 * t);
for (let i = 0; i < 5; i++) {
  const name = `boom.node${i + 1}`;
  const x = 0.3 * i;
  // First mode-like shape of a cantilever: no deflection or slope at the root.
  const w = (t) => bend(t) * (1 - Math.cos((Math.PI * i) / 8));
  const slope = (t) => ((bend(t) * Math.PI) / (2 * 1.2)) * Math.sin((Math.PI * i) / 8);
  const pos = (t) => add(pivot, roty(phi(t), [x, 0, w(t)]));
  const ang = (t) => phi(t) - slope(t);
  ['x', 'y', 'z'].forEach((c, j) => put(`${name}.position.${c}`, 'm', (t) => pos(t)[j]));
  [0, 1, 2, 3].forEach((j) => put(`${name}.orientation.e${j}`, '', (t) => qy(ang(t))[j]));
  frames.push({
    name,
    kind: 'node',
    position: ['x', 'y', 'z'].map((c) => `${name}.position.${c}`),
    orientation: [0, 1, 2, 3].map((j) => `${name}.orientation.e${j}`),
    initial_orientation: qy(ang(0)),
  });
  beamNodes.push(frames.length - 1);
}
const tip = beamNodes[4];

put('V1.pressure', 'Pa', (t) => 80e5 + 60e5 * Math.sin(2 * Math.PI * t));
put('V2.pressure', 'Pa', (t) => 60e5 - 45e5 * Math.sin(2 * Math.PI * t));
put('valve1.spool', 'V', (t) => 10 * Math.sin(2 * Math.PI * 0.75 * t));
put('cyl.force', 'kN', (t) => 12 * Math.cos(Math.PI * t));
put('sensor.gappy', 'm', (t) => Math.cos(3 * t));
channels['sensor.gappy'][40] = null;

const bodies = [
  { name: 'upper', frame: upper, shapes: [{ type: 'bar', a: [0, 0, L1 / 2], b: [0, 0, -L1 / 2], radius: 0.035 }, { type: 'box', center: [0, 0, 0], size: [0.1, 0.1, 0.18] }] },
  { name: 'lower', frame: lower, shapes: [{ type: 'bar', a: [0, 0, L2 / 2], b: [0, 0, -L2 / 2], radius: 0.03 }, { type: 'sphere', center: [0, 0, -L2 / 2], radius: 0.09 }, { type: 'cylinder', a: [0, -0.05, 0.1], b: [0, 0.05, 0.1], radius: 0.05 }] },
];
const joints = [
  { name: 'pivot', type: 'revolute', frame: 0, point: [0, 0, 0], axis: [0, 1, 0], size: 0.09 },
  { name: 'elbow', type: 'revolute', frame: upper, point: [0, 0, -L1 / 2], axis: [0, 1, 0], size: 0.08 },
  { name: 'boom.root', type: 'revolute', frame: beamNodes[0], point: [0, 0, 0], axis: [0, 1, 0], size: 0.07 },
  { name: 'boom.tip', type: 'spherical', frame: tip, point: [0, 0, 0], axis: null, size: 0.06 },
];
const links = [
  { name: 'spring', type: 'spring', a: { frame: 0, point: [-1.3, 0, -0.9] }, b: { frame: lower, point: [0, 0, 0] }, radius: 0.05 },
  {
    name: 'lift', type: 'cylinder', a: { frame: 0, point: [0.9, 0, -1.9] }, b: { frame: upper, point: [0, 0, -0.15] }, radius: 0.045,
    barrel: 0.6, pressures: ['V1.pressure', 'V2.pressure'],
  },
  { name: 'boom.damper', type: 'damper', a: { frame: 0, point: [2.6, 0, -1.5] }, b: { frame: tip, point: [0, 0, 0] }, radius: 0.035 },
];
const beams = [{ name: 'boom', nodes: beamNodes, radius: 0.03 }];

// Extent over the run: every frame origin, shape point and link anchor, padded.
const lo = [Infinity, Infinity, Infinity];
const hi = [-Infinity, -Infinity, -Infinity];
const grow = (p, r = 0.1) => p.forEach((v, j) => { lo[j] = Math.min(lo[j], v - r); hi[j] = Math.max(hi[j], v + r); });
for (let i = 0; i < N; i++) {
  for (let k = 1; k < frames.length; k++) grow(frames[k].position.map((c) => channels[c][i]));
  for (const l of links) for (const e of [l.a, l.b]) if (e.frame === 0) grow(e.point);
}
grow([0, 0, 0]);

let scene = {
  version: 1,
  model: 'DoublePendulum',
  title: 'Planar double pendulum with a spring, a hydraulic cylinder and a flexible boom (synthetic test scene)',
  up: [0, 0, 1],
  view: [0, 1, 0],
  extent: { min: lo, max: hi },
  time,
  channels,
  units,
  frames,
  bodies,
  beams,
  joints,
  links,
  pressure_range: [15e5, 140e5],
  gauges: [
    { channel: 'valve1.spool', label: 'valve1 spool', unit: 'V', min: -10, max: 10 },
    { channel: 'cyl.force', label: 'cylinder force', unit: 'kN', min: 0, max: 15 },
  ],
  plots: ['upper.angle', 'V1.pressure'],
  magnification: 5,
};
if (variant === 'oblique') scene.view = [0.45, 0.8, -0.4];
if (variant === 'missing-channel') scene.plots.push('no.such.channel');
let json = JSON.stringify(scene).replaceAll('</', '<\\/');
if (variant === 'broken-json') json = json.slice(0, json.length / 2);
const data = variant === 'no-data' ? '' : `<script type="application/json" id="mbfmu-replay-data">${json}</script>\n`;
const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${scene.model} - 3D replay</title></head>
<body>
${data}<script>${bundle}</script>
</body></html>
`;
writeFileSync(out, html);
console.log(`${out} (${variant}, ${html.length} bytes)`);
