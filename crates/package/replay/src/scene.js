// Builds the three.js objects of the replay (bodies, beams, joint markers, links, grid, lights)
// and moves them to the displayed frame poses; projects each element's bounding box to the screen.
import {
  AxesHelper,
  Box3,
  CatmullRomCurve3,
  Color,
  ConeGeometry,
  Curve,
  CylinderGeometry,
  BoxGeometry,
  DirectionalLight,
  GridHelper,
  Group,
  HemisphereLight,
  Mesh,
  MeshStandardMaterial,
  Quaternion,
  SphereGeometry,
  TubeGeometry,
  Vector3,
} from 'three';

const Y = new Vector3(0, 1, 0);
const BODY_COLOURS = [0x3b7dd8, 0xe0913a, 0x4aa564, 0xc8504b, 0x8a63c4, 0x2aa7a7, 0xb5a032, 0xd16fae];
const JOINT_COLOURS = {
  revolute: 0xf2b807, spherical: 0xe8731c, translational: 0x19a3a3, cylindrical: 0x1b8fd6,
  universal: 0xd1439b, fixed: 0x555555, planar: 0x7b59c0, distance: 0x7fae2f,
};

function material(colour, extra = {}) {
  return new MeshStandardMaterial({ color: colour, roughness: 0.55, metalness: 0.1, ...extra });
}

// A cylinder of unit height along +y from y = 0 to y = 1.
function unitCylinder(radius, segments = 20) {
  const g = new CylinderGeometry(radius, radius, 1, segments);
  g.translate(0, 0.5, 0);
  return g;
}

// Mesh of a unit cylinder placed between local points a and b.
function between(geometry, mat, a, b) {
  const m = new Mesh(geometry, mat);
  const d = new Vector3().subVectors(b, a);
  const len = d.length();
  m.position.copy(a);
  if (len > 0) m.quaternion.setFromUnitVectors(Y, d.clone().divideScalar(len));
  m.scale.set(1, Math.max(len, 1e-9), 1);
  return m;
}

// Places a mesh built along +y (unit length) over y0..y1 of its parent.
function span(mesh, y0, y1) {
  const len = y1 - y0;
  mesh.visible = len > 1e-9;
  mesh.position.y = y0;
  mesh.scale.y = Math.max(len, 1e-9);
}

class Helix extends Curve {
  constructor(radius, length, turns) {
    super();
    this.radius = radius;
    this.length = length;
    this.turns = turns;
  }
  getPoint(t, target = new Vector3()) {
    const lead = 0.06;
    const u = Math.min(Math.max((t - lead) / (1 - 2 * lead), 0), 1);
    const ang = 2 * Math.PI * this.turns * u;
    const r = t < lead || t > 1 - lead ? 0 : this.radius;
    return target.set(r * Math.cos(ang), t * this.length, r * Math.sin(ang));
  }
}

// Blue (low) to red (high) over the pressure range.
export function pressureColour(p, range, out = new Color()) {
  if (!range || !Number.isFinite(p)) return out.set(0x9aa3ad);
  const span = range[1] - range[0];
  const u = span > 0 ? Math.min(Math.max((p - range[0]) / span, 0), 1) : 0.5;
  return out.setHSL((2 / 3) * (1 - u), 0.85, 0.5);
}

export class ReplayScene {
  constructor(data, kin, three) {
    this.data = data;
    this.kin = kin;
    this.root = three;
    const min = new Vector3(...data.extent.min);
    const max = new Vector3(...data.extent.max);
    this.center = min.clone().add(max).multiplyScalar(0.5);
    this.size = Math.max(max.clone().sub(min).length(), 1e-6);
    this.elements = [];
    this.triads = [];
    this.jointGroups = [];
    this.addEnvironment(min, max);
    data.bodies.forEach((b, j) => this.addBody(b, j));
    data.beams.forEach((b) => this.addBeam(b));
    data.joints.forEach((j) => this.addJoint(j));
    data.links.forEach((l) => this.addLink(l));
  }

  addEnvironment(min, max) {
    const up = new Vector3(...this.data.up);
    const corners = [];
    for (let i = 0; i < 8; i++) corners.push(new Vector3(i & 1 ? max.x : min.x, i & 2 ? max.y : min.y, i & 4 ? max.z : min.z));
    const low = Math.min(...corners.map((c) => c.dot(up)));
    const spanH = Math.max(...corners.map((c) => c.clone().sub(this.center).projectOnPlane(up).length()));
    const raw = Math.max(spanH * 3, this.size * 0.5);
    const step = niceStep(raw / 20);
    const divisions = Math.max(2, Math.ceil(raw / step / 2) * 2);
    const grid = new GridHelper(divisions * step, divisions, 0x8c939b, 0xc2c7cc);
    grid.quaternion.setFromUnitVectors(Y, up);
    grid.position.copy(this.center).addScaledVector(up, low - this.center.dot(up));
    grid.material.transparent = true;
    grid.material.opacity = 0.8;
    this.root.add(grid);
    this.grid = grid;

    const hemi = new HemisphereLight(0xffffff, 0x8d8a84, 1.6);
    hemi.position.copy(up);
    this.root.add(hemi);
    // A light that follows the camera (added to the camera by the caller).
    this.headlight = new DirectionalLight(0xffffff, 1.7);
    this.headlight.position.set(0.4, 0.6, 1);
    const groundTriad = new AxesHelper(this.size * 0.08);
    groundTriad.visible = false;
    this.root.add(groundTriad);
    this.triads.push(groundTriad);
  }

  element(name, kind, object, meshes, update) {
    this.elements.push({ name, kind, object, meshes, update });
    this.root.add(object);
  }

  addBody(body, j) {
    const group = new Group();
    const colour = BODY_COLOURS[j % BODY_COLOURS.length];
    const mat = material(colour);
    const dark = material(new Color(colour).multiplyScalar(0.7));
    const meshes = [];
    let reach = 0;
    for (const s of body.shapes) {
      if (s.type === 'bar' || s.type === 'cylinder') {
        const a = new Vector3(...s.a);
        const b = new Vector3(...s.b);
        const m = between(unitCylinder(s.radius), s.type === 'bar' ? mat : dark, a, b);
        meshes.push(m);
        if (s.type === 'bar') {
          for (const p of [a, b]) {
            const cap = new Mesh(new SphereGeometry(s.radius, 16, 12), mat);
            cap.position.copy(p);
            meshes.push(cap);
          }
        }
        reach = Math.max(reach, a.length(), b.length());
      } else if (s.type === 'sphere') {
        const m = new Mesh(new SphereGeometry(s.radius, 24, 16), dark);
        m.position.set(...s.center);
        meshes.push(m);
        reach = Math.max(reach, m.position.length() + s.radius);
      } else if (s.type === 'box') {
        const m = new Mesh(new BoxGeometry(...s.size), mat);
        m.position.set(...s.center);
        meshes.push(m);
        reach = Math.max(reach, m.position.length() + new Vector3(...s.size).length() / 2);
      }
    }
    for (const m of meshes) group.add(m);
    const triad = new AxesHelper(Math.min(Math.max(reach * 0.5, this.size * 0.04), this.size * 0.15));
    triad.visible = false;
    triad.renderOrder = 1;
    triad.material.depthTest = false;
    group.add(triad);
    this.triads.push(triad);
    const kin = this.kin;
    this.element(body.name, 'body', group, meshes, () => {
      group.position.copy(kin.position[body.frame]);
      group.quaternion.copy(kin.quaternion[body.frame]);
    });
  }

  addBeam(beam) {
    const group = new Group();
    const mat = material(0x5f7f99);
    const nodeMat = material(0x34495e);
    const tube = new Mesh(undefined, mat);
    group.add(tube);
    const nodeGeo = new SphereGeometry(beam.radius * 1.35, 14, 10);
    const nodes = beam.nodes.map(() => {
      const m = new Mesh(nodeGeo, nodeMat);
      group.add(m);
      return m;
    });
    const kin = this.kin;
    const points = beam.nodes.map(() => new Vector3());
    const segments = Math.max(8, 10 * (beam.nodes.length - 1));
    this.element(beam.name, 'beam', group, [tube, ...nodes], () => {
      beam.nodes.forEach((k, i) => {
        points[i].copy(kin.position[k]);
        nodes[i].position.copy(points[i]);
      });
      const curve = points.length > 2 ? new CatmullRomCurve3(points, false, 'centripetal') : new CatmullRomCurve3(points);
      if (tube.geometry) tube.geometry.dispose();
      tube.geometry = new TubeGeometry(curve, segments, beam.radius, 12, false);
    });
  }

  addJoint(joint) {
    const group = new Group();
    const colour = JOINT_COLOURS[joint.type] ?? 0xf2b807;
    const mat = material(colour, { roughness: 0.4 });
    const p = new Vector3(...joint.point);
    const ball = new Mesh(new SphereGeometry(joint.size / 2, 16, 12), mat);
    ball.position.copy(p);
    const meshes = [ball];
    if (joint.axis) {
      const axis = new Vector3(...joint.axis);
      const s = joint.size;
      const shaft = between(unitCylinder(s * 0.09, 10), mat, p.clone().addScaledVector(axis, -s), p.clone().addScaledVector(axis, 0.7 * s));
      const tip = new Mesh(new ConeGeometry(s * 0.2, s * 0.3, 14), mat);
      tip.quaternion.setFromUnitVectors(Y, axis);
      tip.position.copy(p).addScaledVector(axis, 0.85 * s);
      meshes.push(shaft, tip);
    }
    for (const m of meshes) group.add(m);
    this.jointGroups.push(group);
    const kin = this.kin;
    this.element(joint.name, 'joint', group, meshes, () => {
      group.position.copy(kin.position[joint.frame]);
      group.quaternion.copy(kin.quaternion[joint.frame]);
    });
  }

  // Pin-to-pin length of a link over the recorded run (magnification 1).
  linkLengths(link) {
    const kin = this.kin;
    const pa = new Vector3();
    const pb = new Vector3();
    const p = new Vector3();
    const q = new Quaternion();
    const at = (end, s, out) => {
      kin.pose(end.frame, s, p, q);
      return out.set(...end.point).applyQuaternion(q).add(p);
    };
    let lo = Infinity;
    let hi = -Infinity;
    let first = 0;
    for (let i = 0; i < kin.n; i++) {
      const s = { i, a: 0 };
      const len = at(link.a, s, pa).distanceTo(at(link.b, s, pb));
      if (i === 0) first = len;
      lo = Math.min(lo, len);
      hi = Math.max(hi, len);
    }
    return { first, lo, hi };
  }

  addLink(link) {
    const group = new Group();
    const r = link.radius;
    const { first: len0, lo, hi } = this.linkLengths(link);
    const meshes = [];
    const parts = []; // [mesh, (len) => [y0, y1]]
    const add = (mesh, place) => {
      group.add(mesh);
      meshes.push(mesh);
      if (place) parts.push([mesh, place]);
      return mesh;
    };
    const pinMat = material(0x444a50);
    add(new Mesh(new SphereGeometry(r * 0.75, 12, 8), pinMat));
    const pinB = add(new Mesh(new SphereGeometry(r * 0.75, 12, 8), pinMat));
    parts.push([pinB, null]);
    let helix = null;
    let pressureMats = null;
    const damper = (thick, thin) => {
      const body = material(0x4d5560);
      const rod = material(0xc9ced3, { metalness: 0.5, roughness: 0.3 });
      add(new Mesh(unitCylinder(thin), rod), (len) => [0, len]);
      add(new Mesh(unitCylinder(thick), body), (len) => [0, Math.min(0.55 * len0, len)]);
    };
    switch (link.type) {
      case 'spring':
      case 'spring_damper': {
        const wire = Math.max(r * 0.14, 1e-6);
        const turns = Math.max(5, Math.min(14, Math.round(len0 / (r * 0.9))));
        helix = add(new Mesh(new TubeGeometry(new Helix(r, Math.max(len0, 1e-6), turns), turns * 16, wire, 6, false), material(0x2c8f4e, { metalness: 0.3 })));
        if (link.type === 'spring_damper') damper(r * 0.45, r * 0.2);
        break;
      }
      case 'damper':
        damper(r, r * 0.4);
        break;
      case 'cylinder': {
        const barrel = Math.max(link.barrel, 0.05) * len0;
        // Rod length chosen so that the piston stays inside the barrel over the run.
        let rod = ((hi - 0.9 * barrel) + (lo - 0.1 * barrel)) / 2;
        if (!(rod > 0)) rod = Math.max(len0 - 0.5 * barrel, 0);
        const piston = (len) => Math.min(Math.max(len - rod, 0.03 * barrel), 0.97 * barrel);
        pressureMats = [material(0x9aa3ad), material(0x9aa3ad)];
        add(new Mesh(unitCylinder(r, 24), pressureMats[0]), (len) => [0, piston(len)]);
        add(new Mesh(unitCylinder(r, 24), pressureMats[1]), (len) => [piston(len), barrel]);
        const rodMat = material(0xd7dbe0, { metalness: 0.6, roughness: 0.25 });
        add(new Mesh(unitCylinder(r * 0.45, 16), rodMat), (len) => [piston(len), len]);
        const capMat = material(0x3c4248);
        add(new Mesh(unitCylinder(r * 1.12, 24), capMat), () => [-0.02 * barrel, 0.015 * barrel]);
        add(new Mesh(unitCylinder(r * 1.12, 24), capMat), () => [0.985 * barrel, barrel]);
        break;
      }
      case 'actuator':
        add(new Mesh(unitCylinder(r, 16), material(0x8a63c4)), (len) => [0, len]);
        break;
      default:
        add(new Mesh(unitCylinder(r, 16), material(0x7b838c)), (len) => [0, len]);
    }
    const kin = this.kin;
    const a = new Vector3();
    const b = new Vector3();
    const dir = new Vector3();
    const colour = new Color();
    const range = this.data.pressureRange;
    this.element(link.name, 'link', group, meshes, (s) => {
      kin.world(link.a.frame, link.a.point, a);
      kin.world(link.b.frame, link.b.point, b);
      dir.subVectors(b, a);
      const len = dir.length();
      group.position.copy(a);
      if (len > 1e-12) group.quaternion.setFromUnitVectors(Y, dir.divideScalar(len));
      pinB.position.y = len;
      for (const [mesh, place] of parts) if (place) span(mesh, ...place(len));
      if (helix) helix.scale.y = len0 > 0 ? len / len0 : 1;
      if (pressureMats) {
        for (let j = 0; j < 2; j++) {
          const p = link.pressures ? kin.value(link.pressures[j], s) : NaN;
          pressureMats[j].color.copy(pressureColour(p, range, colour));
        }
      }
    });
  }

  // Moves everything to the displayed poses (kin updated by the caller) at located time s.
  update(s) {
    for (const e of this.elements) e.update(s);
  }

  setTriads(on) {
    for (const t of this.triads) t.visible = on;
  }

  setJoints(on) {
    for (const g of this.jointGroups) g.visible = on;
  }

  // World bounding box of an element's meshes (shown or not).
  worldBox(e, box = new Box3()) {
    box.makeEmpty();
    e.object.updateWorldMatrix(true, true);
    for (const m of e.meshes) {
      if (!m.geometry) continue;
      if (!m.geometry.boundingBox) m.geometry.computeBoundingBox();
      const b = m.geometry.boundingBox.clone().applyMatrix4(m.matrixWorld);
      box.union(b);
    }
    return box;
  }

  // Each element's world box projected to CSS pixels of a width x height canvas.
  screenBoxes(camera, width, height) {
    camera.updateMatrixWorld();
    const box = new Box3();
    const v = new Vector3();
    return this.elements.map((e) => {
      this.worldBox(e, box);
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      if (!box.isEmpty()) {
        for (let i = 0; i < 8; i++) {
          v.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).project(camera);
          const x = ((v.x + 1) / 2) * width;
          const y = ((1 - v.y) / 2) * height;
          x0 = Math.min(x0, x);
          y0 = Math.min(y0, y);
          x1 = Math.max(x1, x);
          y1 = Math.max(y1, y);
        }
      }
      const r = (x) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);
      return { name: e.name, kind: e.kind, box: [r(x0), r(y0), r(x1), r(y1)], visible: isShown(e.object) };
    });
  }

  // World centre of an element (for its label).
  centre(e, out) {
    return this.worldBox(e).getCenter(out);
  }
}

function isShown(o) {
  for (let x = o; x; x = x.parent) if (!x.visible) return false;
  return true;
}

function niceStep(x) {
  const e = Math.pow(10, Math.floor(Math.log10(x)));
  const f = x / e;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * e;
}
