#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A JS tree for a bundler to work on: DIR/entry.js importing 200 modules (4 MB)
that import each other, each with 60 functions of object literals, template
strings, arrow functions, classes and ??.  Usage: js_tree.py DIR"""
import os, random, sys

random.seed(7)
d = sys.argv[1]
os.makedirs(d)
N = 200
for i in range(N):
    ks = sorted({random.randrange(N) for _ in range(3)} - {i})
    out = [f'import {{ f{k} }} from "./m{k}.js";' for k in ks]
    for j in range(60):
        out.append(f"export function g{i}_{j}(a, b) {{ const o = {{ k{j}: a + b * {j}, s: `t${{a}}-{j}`, "
                   f"arr: [a, b, {j}].map(x => x * 2) }}; if (o.k{j} > {j}) {{ return o.arr.reduce((p, q) => p + q, 0) + "
                   f"'{'x' * 40}'.length; }} return class C{j} {{ m() {{ return a ?? b; }} }}; }}")
    out.append(f"export function f{i}(x) {{ return " + " + ".join(f"g{i}_{j}(x, {j})" for j in range(0, 60, 7))
               + (f" + f{ks[0]}(x - 1)" if ks else "") + "; }")
    open(f"{d}/m{i}.js", "w").write("\n".join(out) + "\n")
open(f"{d}/entry.js", "w").write("\n".join(f'import {{ f{i} }} from "./m{i}.js";' for i in range(N))
                                  + "\nconsole.log(" + "+".join(f"f{i}(1)" for i in range(N)) + ");\n")
