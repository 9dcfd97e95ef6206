// Browser harness for replay pages: opens PAGE in headless Chromium (Debian's, through
// playwright-core), waits for the player, moves the time slider to each requested time like a
// user, screenshots the 3D view and records the elements' screen boxes and the page's errors.
//
//   node test/browse.mjs --page PAGE.html --times 0.2,0.8 --out DIR
//
// Writes DIR/frame-<k>.png, DIR/page.png (the whole page at the end) and DIR/report.json.
// Exit 0 when the page was shown (console errors are only reported), 1 when it could not be
// loaded or never became ready, 2 on bad usage.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebGL without a GPU: ANGLE on SwiftShader (software Vulkan).
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];
const READY_TIMEOUT_MS = 30000;

function usage(msg) {
  if (msg) console.error(`browse.mjs: ${msg}`);
  console.error('usage: node browse.mjs --page PAGE.html --times T1,T2,... --out DIR');
  process.exit(2);
}

function parseArgs(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (!['--page', '--times', '--out'].includes(k)) usage(`unknown argument ${k}`);
    if (i + 1 >= argv.length) usage(`${k} needs a value`);
    a[k.slice(2)] = argv[++i];
  }
  if (!a.page || !a.out) usage('--page and --out are required');
  const times = (a.times ?? '').split(',').filter((s) => s.trim() !== '').map(Number);
  if (times.some((t) => !Number.isFinite(t))) usage(`bad --times ${a.times}`);
  return { page: resolve(a.page), times, out: resolve(a.out) };
}

const args = parseArgs(process.argv.slice(2));
if (!existsSync(args.page)) {
  console.error(`browse.mjs: no such page ${args.page}`);
  process.exit(1);
}
mkdirSync(args.out, { recursive: true });
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`browse.mjs: no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM`);
  process.exit(1);
}

const report = { page: args.page, ready: false, console_errors: [], page_errors: [], replay_errors: [], canvas: null, frames: [] };
const writeReport = () => writeFileSync(join(args.out, 'report.json'), JSON.stringify(report, null, 2) + '\n');

let browser;
let status = 0;
try {
  browser = await chromium.launch({ executablePath, args: FLAGS, headless: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page.on('console', (m) => {
    if (m.type() === 'error') report.console_errors.push(m.text());
  });
  page.on('pageerror', (e) => report.page_errors.push(String((e && e.stack) || e)));
  const url = `${pathToFileURL(args.page).href}?test`;
  await page.goto(url, { waitUntil: 'load', timeout: READY_TIMEOUT_MS });

  // Ready, or failed with a message in the page: no need to wait out the timeout then.
  try {
    await page.waitForFunction(
      () => window.mbfmuReplay && (window.mbfmuReplay.ready || window.mbfmuReplay.failed),
      null,
      { timeout: READY_TIMEOUT_MS },
    );
  } catch {
    // Reported below as not ready.
  }
  const state = await page.evaluate(() => {
    const r = window.mbfmuReplay;
    return r ? { ready: r.ready, errors: r.errors.slice(), hook: true } : { ready: false, errors: [], hook: false };
  });
  report.ready = state.ready;
  report.replay_errors = state.errors;
  if (!state.ready) {
    await page.screenshot({ path: join(args.out, 'page.png') });
    const why = !state.hook
      ? 'the player script did not run (no window.mbfmuReplay)'
      : state.errors.length
        ? `the page shows an error: ${state.errors.join('; ')}`
        : `the player was not ready after ${READY_TIMEOUT_MS / 1000} s`;
    throw new Error(why);
  }

  await page.evaluate(() => window.mbfmuReplay.pause && window.mbfmuReplay.pause());
  const view = page.locator('#mbfmu-view');
  report.canvas = await view.evaluate((c) => ({ width: c.clientWidth, height: c.clientHeight }));
  for (const [k, t] of args.times.entries()) {
    const frame = await page.evaluate(async (t) => {
      const times = window.mbfmuReplay.times;
      let best = 0;
      for (let i = 1; i < times.length; i++) if (Math.abs(times[i] - t) < Math.abs(times[best] - t)) best = i;
      const slider = document.getElementById('mbfmu-time');
      slider.value = String(best);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
      return { index: best, time: times[best], boxes: window.mbfmuReplay.screenBoxes() };
    }, t);
    const shot = `frame-${k}.png`;
    await view.screenshot({ path: join(args.out, shot) });
    report.frames.push({ requested: t, index: frame.index, time: frame.time, screenshot: shot, boxes: frame.boxes });
  }
  await page.screenshot({ path: join(args.out, 'page.png') });
  report.replay_errors = await page.evaluate(() => window.mbfmuReplay.errors.slice());
} catch (e) {
  console.error(`browse.mjs: ${args.page}: ${e.message}`);
  status = 1;
} finally {
  writeReport();
  if (browser) await browser.close();
}
console.log(`browse.mjs: ${status === 0 ? 'ok' : 'failed'}, report in ${join(args.out, 'report.json')}`);
process.exit(status);
