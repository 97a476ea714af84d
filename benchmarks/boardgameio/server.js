// The boardgame.io 0.50 server as deployed by its docs: `Server` from 'boardgame.io/server',
// socket.io transport, in-memory storage (the default), the lobby API on the same port.
//   node [--expose-gc] server.js PORT      prints "ready PORT" once listening
// With --expose-gc, SIGUSR2 runs a full garbage collection: the driver sends it before it reads
// the server's RSS, so memory per table counts live objects, not garbage V8 has yet to collect
// (a Python referee frees most of its garbage at once, by reference counting).
'use strict';

const { Server } = require('boardgame.io/server');
const { Trick } = require('./game');

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [Trick], origins: ['http://localhost'] });
server.run({ port, callback: () => console.log(`ready ${port}`) });
// A clean exit on SIGTERM/SIGINT: the harness stops the server this way, and `node --cpu-prof`
// writes its profile only on a normal exit.
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
process.on('SIGUSR2', () => global.gc && global.gc()); // (a no-op without --expose-gc, not the signal's default exit)
