// Reads the scene (version 1) from the page's JSON script element and checks it: every
// referenced channel present with one number (or null) per sample, frame indices in range.
// Problems that prevent the replay are thrown as ReplayError with a message meant for the page;
// a missing channel of a plot, gauge or chamber pressure is only listed in the scene's warnings.

export class ReplayError extends Error {}

const DATA_ID = 'mbfmu-replay-data';

export function readScene(doc) {
  const el = doc.getElementById(DATA_ID);
  if (!el) throw new ReplayError(`no replay data: the page has no script element with id "${DATA_ID}"`);
  let scene;
  try {
    scene = JSON.parse(el.textContent);
  } catch (e) {
    throw new ReplayError(`the replay data is not valid JSON: ${e.message}`);
  }
  return checkScene(scene);
}

function fail(msg) {
  throw new ReplayError(msg);
}

function isVec(v, n) {
  return Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

function vec(v, n, what) {
  if (!isVec(v, n)) fail(`${what} must be an array of ${n} finite numbers`);
  return v;
}

function num(v, what, dflt) {
  if (v === undefined || v === null) {
    if (dflt !== undefined) return dflt;
    fail(`${what} is missing`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${what} must be a finite number`);
  return v;
}

function unit(v, what) {
  const n = Math.hypot(v[0], v[1], v[2]);
  if (!(n > 0)) fail(`${what} must not be zero`);
  return [v[0] / n, v[1] / n, v[2] / n];
}

// Returns the scene with channels as Float64Array (NaN for null) and defaults filled in.
export function checkScene(s) {
  if (!s || typeof s !== 'object') fail('the replay data is not a JSON object');
  if (s.version !== 1) fail(`unsupported replay data version ${JSON.stringify(s.version)} (this player reads version 1)`);
  const time = s.time;
  if (!Array.isArray(time) || time.length < 2) fail('"time" must be an array of at least 2 numbers');
  for (let i = 0; i < time.length; i++) {
    if (typeof time[i] !== 'number' || !Number.isFinite(time[i])) fail(`time[${i}] is not a finite number`);
    if (i > 0 && !(time[i] > time[i - 1])) fail(`"time" is not strictly increasing at index ${i}`);
  }
  const n = time.length;
  if (!s.channels || typeof s.channels !== 'object') fail('"channels" must be an object of arrays');
  const channels = new Map();
  for (const [name, arr] of Object.entries(s.channels)) {
    if (!Array.isArray(arr) || arr.length !== n) fail(`channel "${name}" must have ${n} values (one per time sample)`);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = arr[i];
      if (v === null) out[i] = NaN;
      else if (typeof v === 'number') out[i] = v;
      else fail(`channel "${name}" has a non-number at index ${i}`);
    }
    channels.set(name, out);
  }
  const units = s.units && typeof s.units === 'object' ? s.units : {};
  const missing = (name, what) => `${what} refers to channel ${JSON.stringify(name)}, which is not in "channels"`;
  const channel = (name, what) => {
    if (typeof name !== 'string' || !channels.has(name)) fail(missing(name, what));
    return name;
  };
  // Channels that only feed a plot, a gauge or a colour: a missing one is reported and dropped.
  const warnings = [];
  const present = (name, what) => {
    if (typeof name === 'string' && channels.has(name)) return true;
    warnings.push(missing(name, what));
    return false;
  };

  if (!Array.isArray(s.frames) || s.frames.length < 1) fail('"frames" must be an array starting with the ground');
  const frames = s.frames.map((f, k) => {
    const what = `frame ${k} (${f && f.name})`;
    if (k === 0) return { name: (f && f.name) || 'ground', kind: 'ground', position: null, orientation: null, initial: null };
    if (!f || !Array.isArray(f.position) || f.position.length !== 3) fail(`${what}: "position" must name 3 channels`);
    const position = f.position.map((c) => channel(c, `${what} position`));
    let orientation = null;
    if (f.orientation !== undefined && f.orientation !== null) {
      if (!Array.isArray(f.orientation) || f.orientation.length !== 4) fail(`${what}: "orientation" must name 4 channels or be null`);
      orientation = f.orientation.map((c) => channel(c, `${what} orientation`));
    }
    const initial = isVec(f.initial_orientation, 4) ? f.initial_orientation : null;
    return { name: String(f.name ?? `frame${k}`), kind: f.kind || 'body', position, orientation, initial };
  });
  const frame = (k, what) => {
    if (!Number.isInteger(k) || k < 0 || k >= frames.length) fail(`${what}: frame index ${JSON.stringify(k)} out of range`);
    return k;
  };

  const bodies = (s.bodies || []).map((b, j) => {
    const what = `body ${j} (${b.name})`;
    const shapes = (b.shapes || []).map((sh, i) => {
      const w = `${what} shape ${i}`;
      switch (sh.type) {
        case 'bar':
        case 'cylinder':
          return { type: sh.type, a: vec(sh.a, 3, `${w} a`), b: vec(sh.b, 3, `${w} b`), radius: num(sh.radius, `${w} radius`) };
        case 'sphere':
          return { type: 'sphere', center: vec(sh.center, 3, `${w} center`), radius: num(sh.radius, `${w} radius`) };
        case 'box':
          return { type: 'box', center: vec(sh.center, 3, `${w} center`), size: vec(sh.size, 3, `${w} size`) };
        default:
          fail(`${w}: unknown shape type ${JSON.stringify(sh.type)}`);
      }
    });
    return { name: String(b.name ?? `body${j}`), frame: frame(b.frame, what), shapes };
  });

  const beams = (s.beams || []).map((b, j) => {
    const what = `beam ${j} (${b.name})`;
    if (!Array.isArray(b.nodes) || b.nodes.length < 2) fail(`${what}: "nodes" must list at least 2 frames`);
    return { name: String(b.name ?? `beam${j}`), nodes: b.nodes.map((k) => frame(k, what)), radius: num(b.radius, `${what} radius`) };
  });

  const joints = (s.joints || []).map((jt, j) => {
    const what = `joint ${j} (${jt.name})`;
    const axis = jt.axis === null || jt.axis === undefined ? null : unit(vec(jt.axis, 3, `${what} axis`), `${what} axis`);
    return {
      name: String(jt.name ?? `joint${j}`),
      type: String(jt.type || 'revolute'),
      frame: frame(jt.frame, what),
      point: vec(jt.point, 3, `${what} point`),
      axis,
      size: num(jt.size, `${what} size`),
    };
  });

  const end = (e, what) => {
    if (!e || typeof e !== 'object') fail(`${what} is missing`);
    return { frame: frame(e.frame, what), point: vec(e.point, 3, `${what} point`) };
  };
  const links = (s.links || []).map((l, j) => {
    const what = `link ${j} (${l.name})`;
    let pressures = null;
    if (Array.isArray(l.pressures)) {
      if (l.pressures.length !== 2) fail(`${what}: "pressures" must name 2 channels`);
      pressures = l.pressures.map((c) => (present(c, `${what} pressures`) ? c : null));
    }
    return {
      name: String(l.name ?? `link${j}`),
      type: String(l.type || 'rod'),
      a: end(l.a, `${what} end a`),
      b: end(l.b, `${what} end b`),
      radius: num(l.radius, `${what} radius`),
      barrel: num(l.barrel, `${what} barrel`, 0.6),
      pressures,
    };
  });

  const gauges = (s.gauges || []).flatMap((g, j) => {
    const what = `gauge ${j} (${g.label || g.channel})`;
    if (!present(g.channel, what)) return [];
    return {
      channel: g.channel,
      label: String(g.label || g.channel),
      unit: String(g.unit ?? units[g.channel] ?? ''),
      min: num(g.min, `${what} min`),
      max: num(g.max, `${what} max`),
    };
  });
  const plots = (s.plots || []).filter((c) => present(c, '"plots"'));

  let extent = s.extent;
  if (!extent || !isVec(extent.min, 3) || !isVec(extent.max, 3)) fail('"extent" must have "min" and "max" points');
  const pr = isVec(s.pressure_range, 2) ? s.pressure_range : null;

  return {
    model: String(s.model || 'model'),
    title: String(s.title || ''),
    up: unit(vec(s.up || [0, 0, 1], 3, '"up"'), '"up"'),
    view: unit(vec(s.view || [0, -1, 0], 3, '"view"'), '"view"'),
    extent: { min: extent.min, max: extent.max },
    time: Float64Array.from(time),
    channels,
    units,
    frames,
    bodies,
    beams,
    joints,
    links,
    pressureRange: pr,
    gauges,
    plots,
    magnification: num(s.magnification, '"magnification"', 1),
    warnings,
  };
}
