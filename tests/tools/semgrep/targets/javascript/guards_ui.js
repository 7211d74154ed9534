// Guards and sinks of the JavaScript/TypeScript request-flow rules (issue 22, CodeQL's JS
// models): each flagged route has a guarded twin that stays quiet; a look-alike guard, which
// proves nothing of the sink's kind or does not control the path to it, does not (issue 27).
function showNotice(n) {
  // ruleid: js-xss-jquery-html-string
  $("#notices").append($('<div class="notice">' + n.message + "</div>"));
}

function showNoticeEscaped(n) {
  // ok: js-xss-jquery-html-property, js-xss-jquery-html-string
  $("#notices").append($('<div class="notice">' + _.escape(n.message) + "</div>"));
}

function showDialog(message) {
  // ruleid: js-xss-jquery-html-property
  return $("<div>", { width: 400, html: message });
}

function showDialogText(message) {
  // ok: js-xss-jquery-html-property, js-xss-jquery-html-string
  return $("<div>", { width: 400, text: message });
}

function showDialogSafe(message) {
  // ok: js-xss-jquery-html-property, js-xss-jquery-html-string
  return $("<div>", { width: 400, html: DOMPurify.sanitize(message) });
}
