// Request data to a redirect, and its safe look-alikes (a helper that returns a fixed path,
// the referrer the server checked).
const url = require("url");

function redirectToDirectory(request, reply) {
  const parsed = url.parse(request.raw.url);
  // ruleid: js-open-redirect-request-location
  reply.redirect(301, parsed.pathname + "/" + (parsed.search || ""));
}

function redirectToDirectorySafely(request, reply) {
  // ok: js-open-redirect-request-location
  reply.redirect(301, getRedirectUrl(request.raw.url));
}

module.exports = {
  back(alt) {
    const target = this.ctx.get("Referrer") || alt || "/";
    // ruleid: js-open-redirect-request-location
    this.redirect(target);
  },

  backSafely(alt) {
    const referrer = this.ctx.get("Referrer");
    if (referrer && referrer.startsWith("/")) {
      // ok: js-open-redirect-request-location
      this.redirect(referrer);
      return;
    }
    this.redirect(alt || "/");
  },
};
