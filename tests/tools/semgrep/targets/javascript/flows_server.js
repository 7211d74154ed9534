// Request data to JavaScript sinks (CodeQL's JS models), each beside a safe look-alike; a
// same-file helper that returns request data is a source; a sanitised deserialiser is no code
// injection, and a deserialiser is insecure deserialisation only.
const crypto = require("crypto");

function deserialize(str) {
  // ruleid: js-insecure-deserialization-eval
  return new Function("return " + str)();
}

function deserializeChecked(str, unsafe) {
  if (!unsafe) str = sanitize(str);
  // ruleid: js-insecure-deserialization-eval
  // ok: js-code-injection-eval
  return new Function("return " + str)();
}

function compile(source) {
  // ruleid: js-code-injection-eval
  return new Function("data", source);
}

function hashPassword(password, salt) {
  // ruleid: js-weak-crypto-pbkdf2-low-iterations
  return crypto.pbkdf2Sync(password, salt, 1000, 64, "sha512");
}

function hashPasswordStrongly(password, salt) {
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  return crypto.pbkdf2Sync(password, salt, 600000, 64, "sha512");
}

// ruleid: js-weak-crypto-pbkdf2-low-iterations
const kdfDefaults = { keySize: 8, iterations: 1 };
// ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
const benchmark = { iterations: 5, warmup: 2 };

const WordArray = {
  random: function (nBytes) {
    const words = [];
    for (let i = 0; i < nBytes; i += 4) {
      // ruleid: js-weak-crypto-math-random-bytes
      const word = (Math.random() * 0x100000000) | 0;
      words.push(word);
    }
    return words;
  },
};

function shuffle(items) {
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  return items.sort(() => Math.random() - 0.5);
}

function allowOrigin(req, res) {
  // ruleid: js-insecure-config-cors-reflected-origin
  res.setHeader("Access-Control-Allow-Origin", req.headers.origin);
}

function allowListedOrigin(req, res) {
  const origin = ALLOWED.includes(req.headers.origin) ? req.headers.origin : "null";
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  res.setHeader("Access-Control-Allow-Origin", origin);
}

function secureRandom() {
  try {
    return globalThis.crypto.getRandomValues(new Uint32Array(1))[0];
  } catch (err) {}
  try {
    return require("crypto").randomBytes(4).readUInt32BE(0);
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  } catch (err) {}
  throw new Error("no secure random source");
}

koaRouter.get("/login", (ctx) => {
  // ruleid: js-open-redirect-request-url
  ctx.redirect(ctx.query.next);
});

honoApp.get("/go", (c) => {
  // ruleid: js-open-redirect-request-url
  return c.redirect(c.req.query("next"));
});

honoApp.get("/home", (c) => {
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  return c.redirect("/home");
});

export async function GET(req) {
  const target = req.nextUrl.searchParams.get("url");
  // ruleid: js-ssrf-request-url
  const upstream = await fetch(target);
  return new Response(await upstream.text());
}

export async function POST(request) {
  const body = await request.json();
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  const upstream = await fetch(API_BASE + "/items", { method: "POST", body: JSON.stringify(body) });
  return new Response(await upstream.text());
}

fastify.get("/files/:name", async (request, reply) => {
  // ruleid: js-path-traversal-request-path
  return reply.sendFile(request.params.name);
});

fastify.get("/logo", async (request, reply) => {
  // ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
  return reply.sendFile("logo.png");
});

function nextOf(req) {
  return req.query.next || "/";
}

function homeOf(req) {
  return "/home";
}

// ruleid: js-open-redirect-request-url
app.get("/continue", (req, res) => res.redirect(nextOf(req)));
// ok: js-code-injection-eval, js-insecure-config-cors-reflected-origin, js-insecure-deserialization-eval, js-open-redirect-request-url, js-path-traversal-request-path, js-ssrf-request-url, js-weak-crypto-math-random-bytes, js-weak-crypto-pbkdf2-low-iterations
app.get("/start", (req, res) => res.redirect(homeOf(req)));
