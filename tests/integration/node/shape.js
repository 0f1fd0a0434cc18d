'use strict';
// A program of known shape for tests/integration/node/frames.sh: the hot paths
// main -> a -> b -> c, main -> hotInline (-> tiny, inlined once optimized),
// main -> anon -> a, main -> arrow -> c of other.js (a second c), main -> sortUser ->
// sort (V8's builtin) -> cmp, main -> parseUser -> JSON.parse -> reviver (native code
// between them).  decoy runs only before the probe starts: its JSFunction may be left
// in stack memory below live frames, and must never be named.
const other = require('./other.js');

function c(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
function b(n) { return c(n) + 1; }
function a(n) { return b(n) + 1; }
function decoy(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 5; return s; }
function tiny(x) { return (x * 2 + 1) % 13; }
function hotInline(n) { let s = 0; for (let i = 0; i < n; i++) s += tiny(i); return s; }
const anon = function (n) { return a(n); };
const arrow = (n) => other.c(n);
function cmp(x, y) { let s = 0; for (let i = 0; i < 20; i++) s += i; return x - y + s - s; }
function sortUser(n) { const v = []; for (let i = 0; i < n; i++) v.push((i * 7919) % n); return v.sort(cmp).length; }
function reviver(k, v) { let s = 0; for (let i = 0; i < 50; i++) s += i; return typeof v === 'number' ? v + s - s : v; }
function parseUser(n) { return JSON.parse('[' + Array.from({ length: n }, (_, i) => i).join(',') + ']', reviver).length; }

for (let i = 0; i < 200; i++) decoy(10000);
process.stdout.write('ready\n');
const end = Date.now() + 1000 * Number(process.argv[2] || 6);
while (Date.now() < end) {
	a(200000);
	hotInline(200000);
	anon(100000);
	arrow(200000);
	sortUser(2000);
	parseUser(2000);
}
