// Kinematics of the replay: the pose of every frame at any time (linear interpolation of
// positions, normalised linear interpolation of quaternions between samples) and the displayed
// poses with the beams' elastic deformation magnified about each beam's rigid reference.
import { Quaternion, Vector3 } from 'three';

// Copy of a channel with gaps (NaN) filled by the last finite value (leading gaps by the first),
// so that the drawing never receives NaN.
function filled(arr) {
  const out = Float64Array.from(arr);
  let first = out.findIndex((v) => Number.isFinite(v));
  if (first < 0) return out.fill(0);
  for (let i = 0; i < first; i++) out[i] = out[first];
  for (let i = first + 1; i < out.length; i++) if (!Number.isFinite(out[i])) out[i] = out[i - 1];
  return out;
}

// Quaternion (e0 scalar, e1, e2, e3) as three's (x, y, z, w), normalised; identity if degenerate.
function setQuat(q, e0, e1, e2, e3) {
  const n = Math.hypot(e0, e1, e2, e3);
  if (!(n > 1e-12)) return q.set(0, 0, 0, 1);
  return q.set(e1 / n, e2 / n, e3 / n, e0 / n);
}

export class Kinematics {
  constructor(scene) {
    this.time = scene.time;
    this.n = scene.time.length;
    const cache = new Map();
    const ch = (name) => {
      if (!cache.has(name)) cache.set(name, filled(scene.channels.get(name)));
      return cache.get(name);
    };
    this.frames = scene.frames.map((f) => ({
      pos: f.position ? f.position.map(ch) : null,
      rot: f.orientation ? f.orientation.map(ch) : null,
      initial: f.initial,
    }));
    this.raw = scene.channels;
    this.count = this.frames.length;
    this.position = Array.from({ length: this.count }, () => new Vector3());
    this.quaternion = Array.from({ length: this.count }, () => new Quaternion());
    this.beams = scene.beams.map((b) => this.beamReference(b));
  }

  // Sample index i and weight a in [0, 1) of time t (clamped to the run): value = (1-a) v[i] + a v[i+1].
  locate(t) {
    const time = this.time;
    const n = this.n;
    if (!(t > time[0])) return { i: 0, a: 0 };
    if (t >= time[n - 1]) return { i: n - 1, a: 0 };
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (time[mid] <= t) lo = mid;
      else hi = mid;
    }
    return { i: lo, a: (t - time[lo]) / (time[lo + 1] - time[lo]) };
  }

  // Value of a channel (gaps kept as NaN) at located time s.
  value(name, s) {
    const v = name === null ? undefined : this.raw.get(name);
    if (!v) return NaN;
    if (s.a === 0) return v[s.i];
    return v[s.i] + s.a * (v[s.i + 1] - v[s.i]);
  }

  // Pose of frame k at located time s into (p, q).
  pose(k, s, p, q) {
    const f = this.frames[k];
    const { i, a } = s;
    if (!f.pos) {
      p.set(0, 0, 0);
      q.set(0, 0, 0, 1);
      return;
    }
    const [x, y, z] = f.pos;
    if (a === 0) p.set(x[i], y[i], z[i]);
    else p.set(x[i] + a * (x[i + 1] - x[i]), y[i] + a * (y[i + 1] - y[i]), z[i] + a * (z[i + 1] - z[i]));
    if (!f.rot) {
      q.set(0, 0, 0, 1);
      return;
    }
    const [e0, e1, e2, e3] = f.rot;
    if (a === 0) {
      setQuat(q, e0[i], e1[i], e2[i], e3[i]);
      return;
    }
    const j = i + 1;
    const dot = e0[i] * e0[j] + e1[i] * e1[j] + e2[i] * e2[j] + e3[i] * e3[j];
    const b = dot < 0 ? -a : a;
    const c = 1 - a;
    setQuat(q, c * e0[i] + b * e0[j], c * e1[i] + b * e1[j], c * e2[i] + b * e2[j], c * e3[i] + b * e3[j]);
  }

  // Each node's offset from the first node at time[0], in the first node's initial frame.
  beamReference(beam) {
    const s0 = { i: 0, a: 0 };
    const p0 = new Vector3();
    const q0 = new Quaternion();
    this.pose(beam.nodes[0], s0, p0, q0);
    const first = this.frames[beam.nodes[0]];
    const rotates = first.rot !== null;
    if (rotates && first.initial) {
      const [e0, e1, e2, e3] = first.initial;
      setQuat(q0, e0, e1, e2, e3);
    }
    const inv = rotates ? q0.clone().invert() : new Quaternion();
    const p = new Vector3();
    const q = new Quaternion();
    const offsets = beam.nodes.map((k) => {
      this.pose(k, s0, p, q);
      return p.clone().sub(p0).applyQuaternion(inv);
    });
    return { nodes: beam.nodes, rotates, offsets };
  }

  // Displayed poses of all frames at time t into this.position / this.quaternion: the recorded
  // pose, with each beam node moved to p_rigid + m (p - p_rigid).
  update(t, magnification) {
    const s = this.locate(t);
    for (let k = 0; k < this.count; k++) this.pose(k, s, this.position[k], this.quaternion[k]);
    const m = magnification;
    if (m !== 1) {
      const moved = new Set();
      const rigid = new Vector3();
      for (const b of this.beams) {
        const k0 = b.nodes[0];
        const x0 = this.position[k0].clone();
        const r0 = this.quaternion[k0];
        for (let j = 1; j < b.nodes.length; j++) {
          const k = b.nodes[j];
          if (moved.has(k) || k === 0) continue;
          moved.add(k);
          rigid.copy(b.offsets[j]);
          if (b.rotates) rigid.applyQuaternion(r0);
          rigid.add(x0);
          const p = this.position[k];
          p.sub(rigid).multiplyScalar(m).add(rigid);
        }
      }
    }
    return s;
  }

  // World point of a local point of frame k under the current displayed poses.
  world(k, local, out) {
    return out.set(local[0], local[1], local[2]).applyQuaternion(this.quaternion[k]).add(this.position[k]);
  }
}
