// The page's URL written as HTML by the ways a pull request can spell a sink or a source other
// than `el.innerHTML = location.hash`: the property named by a string, Object.assign, and the
// source destructured from location. Each is reported; a fixed value, a safe property, a key
// no one can know and another object's field are not.
import DOMPurify from "dompurify";

// ---- a property named by a string (semgrep-core folds a constant key to the literal)
function fragmentByKey() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")["innerHTML"] = location.hash;
}

function fragmentByJoinedKey() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")["inner" + "HTML"] = location.hash;
}

function fragmentByConstantKey() {
  const key = "outerHTML";
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")[key] = location.hash;
}

function fragmentByTemplateKey() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")[`innerHTML`] = window.location.hash;
}

function writeByKey() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document["write"](document.location.search);
}

function fixedByKey() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")["innerHTML"] = "<p>fixed</p>";
}

function textByKey() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")["textContent"] = location.hash;
}

function unknownKey(key) {
  // A key only known at run time could be any property; reporting every `obj[k] = v` would
  // bury the findings that count.
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out")[key] = location.hash;
}

function purifiedByKey() {
  // ok: js-xss-raw-html-sink
  document.getElementById("out")["innerHTML"] = DOMPurify.sanitize(location.hash);
}

// ---- Object.assign onto the element
function assignFragment() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.getElementById("out"), { innerHTML: location.hash });
}

function assignBesideSpread(options) {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.getElementById("out"), { ...options, innerHTML: location.hash });
}

function assignAfterOtherSources(defaults) {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, defaults, { id: "main", outerHTML: location.search });
}

function assignQuotedKey() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { "innerHTML": document.URL });
}

function assignComputedKey() {
  // semgrep-core's taint engine reads no computed key of an object literal; the markup rule
  // still reports it.
  // ruleid: js-xss-raw-html-sink
  Object.assign(document.body, { ["innerHTML"]: location.hash });
}

function assignOverLines() {
  Object.assign(document.body, {
    id: "main",
    // ruleid: js-xss-dom-source, js-xss-raw-html-sink
    innerHTML: location.hash,
  });
}

function assignBesideFixedMarkup() {
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { innerHTML: "<p>fixed</p>" }, { outerHTML: location.hash });
}

function assignFixed() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { innerHTML: "<p>fixed</p>" });
}

function assignText() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { textContent: location.hash, title: location.hash });
}

function assignPurified() {
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { innerHTML: DOMPurify.sanitize(location.hash) });
}

function assignPurifiedConstant() {
  // A `const` holding DOMPurify's output is followed into the element's own properties, not
  // into Object.assign (cost): reported by the markup rule, a false alarm known.
  const clean = DOMPurify.sanitize(location.hash);
  // todook: js-xss-raw-html-sink
  Object.assign(document.body, { innerHTML: clean });
}

function assignAlias() {
  const loc = window.location;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  Object.assign(document.body, { innerHTML: loc.hash });
}

// ---- the source destructured from location (a request's `const { cmd } = req.query` is
// reported already: `req.query` is the source whole)
function destructuredFragment() {
  const { hash } = location;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = hash;
}

function destructuredRenamed() {
  const { search: query } = window.location;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = decodeURIComponent(query);
}

function destructuredAmongOthers() {
  let { pathname, href } = document.location;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = pathname + href;
}

function destructuredByAssignment() {
  let hash;
  ({ hash } = location);
  // ruleid: js-xss-dom-source
  $("#title").html(hash);
}

function destructuredNested() {
  const { location: { hash } } = window;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.write(hash);
}

function destructuredReferrer() {
  const { referrer } = document;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.body.insertAdjacentHTML("beforeend", referrer);
}

function destructuredName() {
  const { name } = window;
  // ruleid: js-code-injection-dom-source, js-code-injection-eval
  eval(name);
}

function locationInVariable() {
  const loc = document.location;
  // ruleid: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").innerHTML = loc.search;
}

function locationInVariableNavigates() {
  const loc = window.location;
  // ruleid: js-open-redirect-dom-source
  loc.href = new URLSearchParams(loc.search).get("next");
}

function destructuredOtherField() {
  const { pathname } = location;
  // (the markup rule reports any value that is not a literal)
  // ruleid: js-xss-raw-html-sink
  // ok: js-xss-dom-source
  document.getElementById("out").innerHTML = pathname;
}

function destructuredOtherObject(router) {
  const { hash } = router;
  // ruleid: js-xss-raw-html-sink
  // ok: js-xss-dom-source
  document.getElementById("out").innerHTML = hash;
}

function destructuredAsText() {
  const { hash } = location;
  // ok: js-xss-dom-source, js-xss-raw-html-sink
  document.getElementById("out").textContent = hash;
}

function destructuredNumber() {
  const { search } = location;
  // ruleid: js-xss-raw-html-sink
  // ok: js-xss-dom-source
  document.getElementById("out").innerHTML = parseInt(search.slice(1), 10);
}
