// Entry point of the replay player: reads the scene from the page, builds the 3D view, the side
// plot, gauges and controls, runs playback, and exposes the test hook window.mbfmuReplay.
import { Color, PerspectiveCamera, Scene, Vector3, WebGLRenderer } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { readScene, ReplayError } from './data.js';
import { Kinematics } from './poses.js';
import { ReplayScene } from './scene.js';
import { Plot, formatValue } from './plot.js';
import { buildPage, fillChooser, showError, updateGauges } from './ui.js';

const hook = {
  ready: false,
  failed: false,
  errors: [],
  duration: 0,
  times: [],
  setTime() {},
  render() {},
  screenBoxes() {
    return [];
  },
};
window.mbfmuReplay = hook;

function fail(e) {
  const msg = e instanceof ReplayError ? e.message : `internal error: ${(e && e.stack) || e}`;
  hook.failed = true;
  hook.errors.push(msg);
  showError(msg, true);
}
window.addEventListener('error', (e) => hook.errors.push(`uncaught: ${e.message}`));

// Distance along the view direction at which the box fits the camera's field of view.
function fitDistance(min, max, centre, forward, up, right, vfov, aspect) {
  const tv = Math.tan(vfov / 2);
  const th = tv * aspect;
  let d = 0;
  const c = new Vector3();
  for (let i = 0; i < 8; i++) {
    c.set(i & 1 ? max.x : min.x, i & 2 ? max.y : min.y, i & 4 ? max.z : min.z).sub(centre);
    const z = c.dot(forward);
    d = Math.max(d, Math.abs(c.dot(right)) / th - z, Math.abs(c.dot(up)) / tv - z);
  }
  return d;
}

class Player {
  constructor(data, testMode) {
    this.data = data;
    const time = data.time;
    this.t0 = time[0];
    this.t1 = time[time.length - 1];
    this.t = this.t0;
    this.playing = false;
    this.speed = 1;
    this.magnification = Math.min(Math.max(data.magnification, 1), 1000);
    this.ui = buildPage(data, testMode);
    const ui = this.ui;

    this.kin = new Kinematics(data);
    try {
      this.renderer = new WebGLRenderer({ canvas: ui.canvas, antialias: true, preserveDrawingBuffer: true });
    } catch (e) {
      throw new ReplayError(`WebGL is not available in this browser (${e.message})`);
    }
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.scene = new Scene();
    this.scene.background = new Color(0xe9ecef);
    this.content = new ReplayScene(data, this.kin, this.scene);

    const min = new Vector3(...data.extent.min);
    const max = new Vector3(...data.extent.max);
    const centre = min.clone().add(max).multiplyScalar(0.5);
    const forward = new Vector3(...data.view);
    let up = new Vector3(...data.up);
    if (Math.abs(up.dot(forward)) > 0.999) up = new Vector3(1, 0, 0).cross(forward).length() > 0.1 ? new Vector3(1, 0, 0) : new Vector3(0, 1, 0);
    up = up.clone().addScaledVector(forward, -up.dot(forward)).normalize();
    const right = forward.clone().cross(up);
    this.camera = new PerspectiveCamera(35, 4 / 3, 1e-3, 1e3);
    this.camera.up.copy(up);
    this.camera.add(this.content.headlight);
    this.scene.add(this.camera);
    this.view = { min, max, centre, forward, up, right };
    this.frameCamera(4 / 3);
    this.controls = new OrbitControls(this.camera, ui.canvas);
    this.controls.target.copy(centre);
    this.controls.update();
    this.controls.addEventListener('change', () => this.request());

    this.plot = new Plot(ui.plotCanvas, data);
    this.plotted = data.plots.slice();
    fillChooser(ui, data, this.plotted, (names) => {
      this.plotted = names;
      this.plot.setChannels(names);
      this.request();
    });
    this.labelSpans = this.content.elements.map((e) => {
      const s = document.createElement('span');
      s.textContent = e.name;
      s.style.display = 'none';
      ui.labels.append(s);
      return s;
    });
    this.wire();
    this.resize(true);
    this.plot.setChannels(this.plotted);
    this.dirty = true;
    this.last = null;
    requestAnimationFrame((ms) => this.loop(ms));
  }

  // Places the camera along the view direction so that the extent fills the view.
  frameCamera(aspect) {
    const { min, max, centre, forward, up, right } = this.view;
    const cam = this.camera;
    const d = fitDistance(min, max, centre, forward, up, right, (cam.fov * Math.PI) / 180, aspect) * 1.08;
    const dist = Math.max(d, max.distanceTo(min) * 0.05, 1e-6);
    cam.position.copy(centre).addScaledVector(forward, -dist);
    cam.near = dist / 200;
    cam.far = dist * 200;
    cam.lookAt(centre);
    cam.updateProjectionMatrix();
  }

  wire() {
    const ui = this.ui;
    ui.play.addEventListener('click', () => this.setPlaying(!this.playing));
    ui.speed.addEventListener('change', () => {
      this.speed = Number(ui.speed.value) || 1;
    });
    ui.slider.addEventListener('input', () => {
      const i = Math.min(Math.max(Math.round(Number(ui.slider.value)), 0), this.data.time.length - 1);
      this.t = this.data.time[i];
      this.draw(false);
    });
    ui.frames.addEventListener('change', () => {
      this.content.setTriads(ui.frames.checked);
      this.request();
    });
    ui.joints.addEventListener('change', () => {
      this.content.setJoints(ui.joints.checked);
      this.request();
    });
    ui.labelsOn.addEventListener('change', () => this.request());
    if (ui.magnification) {
      ui.magnification.addEventListener('input', () => {
        const m = Number(ui.magnification.value);
        if (Number.isFinite(m) && m >= 1 && m <= 1000) {
          this.magnification = m;
          this.request();
        }
      });
    }
    window.addEventListener('keydown', (e) => {
      if (e.code === 'Space' && !(e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLButtonElement)) {
        e.preventDefault();
        this.setPlaying(!this.playing);
      }
    });
    if (window.ResizeObserver) new ResizeObserver(() => this.resize(false)).observe(ui.view);
    else window.addEventListener('resize', () => this.resize(false));
  }

  setPlaying(on) {
    if (on && this.t >= this.t1) this.t = this.t0;
    this.playing = on;
    this.last = null;
    this.ui.play.textContent = on ? '❚❚ Pause' : '▶ Play';
    this.request();
  }

  resize(first) {
    const c = this.ui.canvas;
    const w = Math.max(c.clientWidth, 1);
    const h = Math.max(c.clientHeight, 1);
    if (!first && w === this.width && h === this.height) return;
    this.width = w;
    this.height = h;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    if (first) this.frameCamera(w / h);
    this.camera.updateProjectionMatrix();
    this.plot.resize();
    this.request();
  }

  request() {
    this.dirty = true;
  }

  loop(ms) {
    if (this.failed) return;
    try {
      if (this.playing) {
        if (this.last !== null) {
          this.t += ((ms - this.last) / 1000) * this.speed;
          if (this.t > this.t1) this.t = this.t0 + ((this.t - this.t1) % (this.t1 - this.t0));
        }
        this.last = ms;
        this.dirty = true;
      }
      if (this.dirty) this.draw(true);
    } catch (e) {
      this.failed = true;
      fail(e);
      return;
    }
    requestAnimationFrame((m) => this.loop(m));
  }

  nearestIndex(t) {
    const s = this.kin.locate(t);
    return s.a > 0.5 ? s.i + 1 : s.i;
  }

  // Renders time this.t now; moves the slider unless the slider set the time.
  draw(moveSlider) {
    this.dirty = false;
    // Poses only when time or magnification changed (not for a camera move).
    if (this.shown === undefined || this.shown.t !== this.t || this.shown.m !== this.magnification) {
      this.located = this.kin.update(this.t, this.magnification);
      this.content.update(this.located);
      this.shown = { t: this.t, m: this.magnification };
    }
    const s = this.located;
    this.renderer.render(this.scene, this.camera);
    const ui = this.ui;
    if (moveSlider) ui.slider.value = String(this.nearestIndex(this.t));
    ui.readout.textContent = `t = ${this.t.toFixed(3)} s / ${formatValue(this.t1)} s`;
    const valueOf = (name) => this.kin.value(name, s);
    updateGauges(ui.gauges, valueOf);
    this.plot.draw(this.t, valueOf);
    this.drawLabels();
    hook.ready = true;
  }

  drawLabels() {
    const on = this.ui.labelsOn.checked;
    const v = new Vector3();
    this.content.elements.forEach((e, j) => {
      const span = this.labelSpans[j];
      const shown = on && e.object.visible;
      span.style.display = shown ? '' : 'none';
      if (!shown) return;
      this.content.centre(e, v).project(this.camera);
      span.style.left = `${((v.x + 1) / 2) * this.width}px`;
      span.style.top = `${((1 - v.y) / 2) * this.height}px`;
    });
  }

  setTime(t) {
    this.t = Math.min(Math.max(Number(t), this.t0), this.t1);
    this.draw(true);
  }
}

function start() {
  let player;
  try {
    const data = readScene(document);
    for (const w of data.warnings) {
      hook.errors.push(w);
      showError(w, false);
    }
    const testMode = new URLSearchParams(window.location.search).has('test');
    player = new Player(data, testMode);
  } catch (e) {
    fail(e);
    return;
  }
  hook.duration = player.t1 - player.t0;
  hook.times = Array.from(player.data.time);
  hook.setTime = (t) => player.setTime(t);
  hook.render = () => player.draw(false);
  hook.screenBoxes = () => player.content.screenBoxes(player.camera, player.width, player.height);
  hook.pause = () => player.setPlaying(false);
  hook.play = () => player.setPlaying(true);
  Object.defineProperty(hook, 'time', { get: () => player.t, configurable: true });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
