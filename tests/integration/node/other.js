'use strict';
// A second function named c, in another file (tests/integration/node/shape.js).

function c(n) { let s = 1; for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }

module.exports = { c };
