'use strict';
const path = require('node:path');
const L = require('./lib');

/**
 * The sandbox answers a 429 with whole seconds ("Please wait for 1 seconds", `Retry-After: 2`): with a
 * 60 s window scaled to 2 s, that rounding alone is worth up to 30 s of real time per 429. The real
 * service rounds real seconds; this makes the scaled sandbox say what it would, scaled: ⌈wait × S⌉ / S
 * (e.g. "Please wait for 0.433 seconds", which the client reads like any hint). S: the time scale (real ms =
 * scaled ms × S). Returns an undo.
 */
function scaleRateLimitHints(sandbox, S) {
  /** @type {{ RateLimiter: { prototype: { take: (...args: any[]) => number } } }} */
  const limits = require(path.join(L.DIST, 'sandbox', 'limits.js'));
  const proto = limits.RateLimiter.prototype;
  const take = proto.take;
  let lastWaitMs = 0;
  // The core calls take() and then, synchronously, rateLimitResponse(): the exact wait is the last one.
  proto.take = function (...args) {
    lastWaitMs = take.apply(this, args);
    return lastWaitMs;
  };
  const undo = [() => (proto.take = take)];
  for (const m of sandbox.modules) {
    const original = m.rateLimitResponse;
    /** @type {any} */ (m).rateLimitResponse = () => original.call(m, +(Math.max(1, Math.ceil((lastWaitMs * S) / 1000)) / S).toFixed(3));
    undo.push(() => /** @type {any} */ (m.rateLimitResponse = original));
  }
  return () => undo.forEach((u) => u());
}

module.exports = { scaleRateLimitHints };
