// Bundles the player (src/main.js) with three.js into dist/replay.js: one minified IIFE that
// the Rust side inlines into a script element, so it must not contain "</script" (or "<!--").
import * as esbuild from 'esbuild';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(fileURLToPath(import.meta.url));
const outfile = join(root, 'dist', 'replay.js');

await esbuild.build({
  entryPoints: [join(root, 'src', 'main.js')],
  outfile,
  bundle: true,
  format: 'iife',
  minify: true,
  target: 'es2020',
  charset: 'ascii',
  legalComments: 'eof',
  logLevel: 'warning',
});

// "</script" would end the element; "<!--" could start the script-data escaped states.
const text = readFileSync(outfile, 'utf8').toLowerCase();
for (const bad of ['</script', '<!--']) {
  const at = text.indexOf(bad);
  if (at >= 0) {
    console.error(`build: ${outfile} contains "${bad}" at offset ${at}; it cannot be inlined in a page`);
    process.exit(1);
  }
}
console.log(`build: ${outfile} (${statSync(outfile).size} bytes)`);
