// Loaded with `node --require` in front of Cube 1.x's own CLI, in the Cube project's directory.
//
// Cube 1.x calls its Rust binary (@cubejs-backend/native) in three places that a JavaScript model
// served by the REST API and the WebSocket transport reaches. That binary is downloaded by an install
// script from GitHub, which this machine cannot reach, so these three, and only these, are replaced:
//
// 1. The SQL API server (Postgres wire, SQL over HTTP): the gateway creates it, and its constructor
//    calls the binary, whether or not the SQL API is enabled. It becomes an inert object that says
//    what it is when used. (The SQL API's call to checkAuth is tested in-process instead.)
// 2. Jinja engine initialisation (YAML/Jinja data models only): a no-op. The example's model is JavaScript.
// 3. `getFinalQueryResult`, the serialiser of a query's rows into the JSON answer: plain JavaScript,
//    for regular queries in the default result format; anything else is refused with a message.
//    CUBEJS_TESSERACT_SQL_PLANNER=false keeps SQL generation in JavaScript (the Rust planner is the binary too).
//
// Everything authentication touches stays Cube's own code: checkAuthWrapper, wrapCheckAuth, the error
// handling, contextToAppId, queryRewrite and the WebSocket subscription server.
//
// When a Cube version moves what is replaced here, starting fails at once with a message naming the
// file and the export that moved, instead of a server that half works.
'use strict';

// Patches the Cube installed in the current directory (the Cube project) before its CLI loads.
require('./cube-1-patches.cjs').applyPatches(process.cwd());
