'use strict';
// A program of known profile for prof's Node frames: sixty(), thirty() and outer()
// (which calls inner()) each spin on process.cpuUsage() for 6, 3 and 1 ms of CPU in
// turn (shares 60/30/10), driven by setImmediate so that no frame runs for long;
// decoy() has spin's shape and runs only before, under the top level, never under round().
function spin(us) {
	const t = process.cpuUsage();
	let x = 0;
	for (;;) {
		for (let i = 0; i < 200; i++)
			x += i;
		const u = process.cpuUsage(t);
		if (u.user + u.system >= us)
			return x;
	}
}
function sixty() { return spin(6000); }
function thirty() { return spin(3000); }
function inner() { return spin(1000); }
function outer() { return inner(); }
function decoy() { return spin(6000); }
const secs = Number(process.argv[2] || 5);
const idle = Number(process.argv[3] ?? 2000);    /* ms idle before the exit */
for (let k = 0; k < 20; k++)
	decoy();
const end = Date.now() + secs * 1000;
let s = 0, rounds = 0;
function round() {
	rounds++;
	s += sixty();
	s += thirty();
	s += outer();
	if (Date.now() < end)
		setImmediate(round);
	else if (idle)	/* idle a while: the samples still queued are judged while it runs */
		setTimeout(() => console.log(`${s > 0 ? 'done' : 'zero'} ${rounds} rounds`), idle);
	else		/* exit at once: what prof read when it drained the samples names them */
		console.log(`${s > 0 ? 'done' : 'zero'} ${rounds} rounds`);
}
round();
