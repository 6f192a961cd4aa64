// Bundle and minify the custom plotly.js (tools/build_plotly.sh runs this in its npm work
// folder): esbuild's API with one plugin that drops the attribute metadata plotly.js keeps
// for its schema and docs (description, role, hrName, requiredOpts, otherOpts). Nothing that
// draws reads them, and plotly.js's own minified dist bundles are built without them; here
// they are ~12 % of the bundle, which every page would unpack and compile.
//
//   node tools/plotly_esbuild.js ENTRY.js OUT.js
'use strict';

const fs = require('fs');
const esbuild = require(require.resolve('esbuild', { paths: [process.cwd()] }));

// plotly.js's sources write metadata in three shapes, one key a line:
//   description: 'one line',            description: ['a', 'b'].join(' '),
//   requiredOpts: ['x', 'y'],
const KEY = '\\s*(?:description|role|hrName)';
const META = [
  new RegExp(KEY + ": '.*',?", 'g'),
  new RegExp(KEY + ': \\[[\\s\\S]*?\\]\\.join\\([\\s\\S]*?\\),?', 'g'),
  new RegExp('\\s*(?:requiredOpts|otherOpts): \\[[\\s\\S]*?\\],?', 'g'),
];

const stripMeta = {
  name: 'strip-plotly-meta',
  setup(build) {
    build.onLoad({ filter: /[\\/]plotly\.js[\\/]src[\\/].*\.js$/ }, async (args) => {
      let text = await fs.promises.readFile(args.path, 'utf8');
      for (const re of META) text = text.replace(re, '');
      return { contents: text, loader: 'js' };
    });
  },
};

const [entry, outfile] = process.argv.slice(2);
if (!entry || !outfile) {
  console.error('usage: node plotly_esbuild.js ENTRY.js OUT.js');
  process.exit(2);
}
esbuild.build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  format: 'iife',
  globalName: 'Plotly',
  minify: true,
  target: 'es2016',
  define: { global: 'window', 'define.amd': 'false' },
  loader: { '.css': 'empty' },   // maplibre's stylesheet, imported for map traces: not needed
  logLevel: 'error',
  plugins: [stripMeta],
}).catch(() => process.exit(1));
