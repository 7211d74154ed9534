// Request data to JavaScript sinks (CodeQL's JS models), each beside a safe look-alike; a
// same-file helper that returns request data is a source; a sanitised deserialiser is no code
// injection, and a deserialiser is insecure deserialisation only.
function avatar(user) {
  // ruleid: js-xss-html-template-property
  return `<img alt="${user.displayName}" src="/avatars/${user.id}.png">`;
}

function avatarEscaped(user) {
  // ok: js-open-redirect-dom-source, js-xss-dom-source, js-xss-html-template-property, js-xss-jquery-html-string, js-xss-url-attribute-unchecked
  return `<img alt="${escapeHtml(user.displayName)}" src="/avatars/${user.id}.png">`;
}

function mention(event) {
  const user = { ...event.user, displayname: validator.escape(String(event.user.displayname)) };
  // ok: js-open-redirect-dom-source, js-xss-dom-source, js-xss-html-template-property, js-xss-jquery-html-string, js-xss-url-attribute-unchecked
  return `<a href="${relativePath}/user/${user.slug}">${user.displayname}</a>`;
}

function redirectPage(url) {
  url = escape(url);
  // ruleid: js-xss-url-attribute-unchecked
  return `Redirecting to <a href="${url}">${url}</a>.`;
}

function profileLink(id) {
  // ok: js-open-redirect-dom-source, js-xss-dom-source, js-xss-html-template-property, js-xss-jquery-html-string, js-xss-url-attribute-unchecked
  return `<a href="/users/${id}">profile</a>`;
}

function showGreeting(name) {
  // ruleid: js-xss-jquery-html-string
  $("#greeting").html("<b>Hello " + name + "</b>");
}

function showGreetingEscaped(name) {
  // ok: js-open-redirect-dom-source, js-xss-dom-source, js-xss-html-template-property, js-xss-jquery-html-string, js-xss-url-attribute-unchecked
  $("#greeting").html("<b>Hello " + escapeHtml(name) + "</b>");
}

function showTab() {
  const tab = decodeURIComponent(location.hash.slice(1));
  // ruleid: js-xss-dom-source
  $("#title").html(tab);
}

function showTabSafely() {
  const tab = decodeURIComponent(location.hash.slice(1));
  // ruleid: js-xss-dom-source
  // ok: js-open-redirect-dom-source, js-xss-html-template-property, js-xss-jquery-html-string, js-xss-url-attribute-unchecked
  $("#title").html(DOMPurify.sanitize(tab));
}

function goNext() {
  const next = new URLSearchParams(location.search).get("next");
  // ruleid: js-open-redirect-dom-source
  window.location.href = next;
}

function goNextIfLocal() {
  const local = new URLSearchParams(location.search).get("next");
  if (!local.startsWith("/")) return;
  // ruleid: js-open-redirect-dom-source
  window.location.href = local;
}

// The DOM sinks beside jQuery's: each is reported from the page's URL (a condition on jQuery's
// method name once dropped every one of them), and a fixed value is not.
function showFragment() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = location.hash;
}

function writeQuery() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.write(decodeURIComponent(location.search));
}

function addFragment() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.body.insertAdjacentHTML("beforeend", window.location.hash);
}

// Code run from the page's URL is code injection, not markup: its own rule.
function runFragment() {
  // ruleid: js-code-injection-dom-source
  setTimeout(location.hash.slice(1), 10);
}

function evalQuery() {
  // ruleid: js-code-injection-dom-source, js-code-injection-eval
  eval(decodeURIComponent(location.search.slice(1)));
}

function functionFromName() {
  // ruleid: js-code-injection-dom-source, js-code-injection-eval
  return new Function("x", window.name);
}

function runCallback() {
  // ok: js-code-injection-dom-source, js-xss-dom-source
  setTimeout(() => render(location.hash), 10);
}

function runCount() {
  // ok: js-code-injection-dom-source
  setInterval(tick, Number(location.hash.slice(1)));
}

function writeFixed() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = "<p>fixed</p>";
}

function runFromAlias() {
  const loc = window.location;
  // ruleid: js-code-injection-dom-source
  setTimeout(loc.hash.slice(1), 10);
}

// The global object's eval and the indirect `(0, eval)(code)` are eval: from the page's URL,
// and on any string that is not a literal.
function evalGlobal() {
  // ruleid: js-code-injection-dom-source, js-code-injection-eval
  window.eval(location.hash.slice(1));
}

function evalIndirect(code) {
  // ruleid: js-code-injection-dom-source, js-code-injection-eval
  (0, eval)(decodeURIComponent(location.search));
  // ruleid: js-code-injection-eval
  globalThis.eval(code);
  // ruleid: js-code-injection-eval
  self.eval(code + ";");
}

function evalFixed() {
  // ok: js-code-injection-dom-source, js-code-injection-eval
  window.eval("1 + 1");
  // ok: js-code-injection-dom-source, js-code-injection-eval
  (0, eval)("this");
  // ok: js-code-injection-dom-source, js-code-injection-eval
  myWindow.evaluate(location.hash);
}
