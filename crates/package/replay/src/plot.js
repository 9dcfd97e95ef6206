// Side plot on a plain 2D canvas: one strip per chosen channel over the whole run, each with
// its own value axis, a legend line (name, unit, current value) and a cursor at the current time.

const COLOURS = ['#1f6fc5', '#d9591f', '#2b9a48', '#b8327a', '#7c55c2', '#1a9c9c'];

function fmt(v) {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
  return v.toPrecision(4).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}
export { fmt as formatValue };

// The value axis of a channel: its finite range, widened where it is (nearly) constant.
function range(v) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of v) if (Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  if (!Number.isFinite(lo)) return [-1, 1];
  if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
    lo -= 0.5 * Math.max(1e-9, Math.abs(lo));
    hi += 0.5 * Math.max(1e-9, Math.abs(hi));
  }
  return [lo, hi];
}

export class Plot {
  constructor(canvas, data) {
    this.canvas = canvas;
    this.data = data;
    this.channels = [];
    this.back = document.createElement('canvas');
    this.time = data.time[0];
  }

  setChannels(names) {
    this.channels = names.slice();
    this.drawBack();
    this.draw(this.time);
  }

  resize() {
    this.drawBack();
    this.draw(this.time);
  }

  layout() {
    const ratio = window.devicePixelRatio || 1;
    const w = this.canvas.clientWidth || 300;
    const h = this.canvas.clientHeight || 200;
    return { ratio, w, h };
  }

  // Curves and axes, redrawn only when the channels or the size change.
  drawBack() {
    const { ratio, w, h } = this.layout();
    for (const c of [this.canvas, this.back]) {
      c.width = Math.round(w * ratio);
      c.height = Math.round(h * ratio);
    }
    const g = this.back.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, w, h);
    const time = this.data.time;
    const t0 = time[0];
    const t1 = time[time.length - 1];
    g.font = '11px system-ui, sans-serif';
    // Room for the widest value label of the chosen channels.
    let widest = 0;
    for (const name of this.channels) {
      const [lo, hi] = range(this.data.channels.get(name));
      widest = Math.max(widest, g.measureText(fmt(lo)).width, g.measureText(fmt(hi)).width);
    }
    const left = Math.max(40, Math.ceil(widest) + 8);
    const right = w - 10;
    this.x = (t) => left + ((t - t0) / (t1 - t0)) * (right - left);
    const n = this.channels.length;
    this.strips = [];
    if (n === 0) {
      g.fillStyle = '#777';
      g.fillText('no channel chosen', left, 20);
      return;
    }
    const bottom = h - 18;
    const stripH = (bottom - 4) / n;
    this.channels.forEach((name, j) => {
      const v = this.data.channels.get(name);
      const top = 4 + j * stripH;
      const y0 = top + 16;
      const y1 = top + stripH - 6;
      const [lo, hi] = range(v);
      const y = (x) => y1 - ((x - lo) / (hi - lo)) * (y1 - y0);
      g.strokeStyle = '#e3e6e9';
      g.lineWidth = 1;
      g.strokeRect(left, y0, right - left, y1 - y0);
      if (lo < 0 && hi > 0) {
        g.beginPath();
        g.moveTo(left, y(0));
        g.lineTo(right, y(0));
        g.stroke();
      }
      g.fillStyle = '#555';
      g.textAlign = 'right';
      g.fillText(fmt(hi), left - 4, y0 + 9);
      g.fillText(fmt(lo), left - 4, y1);
      g.strokeStyle = COLOURS[j % COLOURS.length];
      g.lineWidth = 1.5;
      g.beginPath();
      let pen = false;
      for (let i = 0; i < v.length; i++) {
        if (!Number.isFinite(v[i])) { pen = false; continue; }
        const px = this.x(time[i]);
        const py = y(v[i]);
        if (pen) g.lineTo(px, py);
        else g.moveTo(px, py);
        pen = true;
      }
      g.stroke();
      this.strips.push({ name, top, colour: COLOURS[j % COLOURS.length], unit: this.data.units[name] || '' });
    });
    g.fillStyle = '#555';
    g.textAlign = 'left';
    g.fillText(`${fmt(t0)} s`, left, h - 5);
    g.textAlign = 'right';
    g.fillText(`${fmt(t1)} s`, right, h - 5);
  }

  // Copies the curves and adds the cursor and the legend with current values.
  draw(t, valueAt) {
    this.time = t;
    const { ratio, w, h } = this.layout();
    const g = this.canvas.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(this.back, 0, 0);
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    if (!this.strips || !this.strips.length) return;
    const x = this.x(t);
    g.strokeStyle = 'rgba(200, 30, 30, 0.8)';
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(x, 4);
    g.lineTo(x, h - 18);
    g.stroke();
    g.font = '11px system-ui, sans-serif';
    g.textAlign = 'left';
    for (const s of this.strips) {
      const val = valueAt ? ` = ${fmt(valueAt(s.name))}` : '';
      const text = `${s.name}${s.unit ? ` [${s.unit}]` : ''}${val}`;
      g.fillStyle = s.colour;
      g.fillRect(56, s.top + 5, 10, 3);
      g.fillStyle = '#222';
      g.fillText(text, 70, s.top + 11, w - 80);
    }
  }
}
